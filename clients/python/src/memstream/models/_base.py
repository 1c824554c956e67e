"""How request and answer models treat fields the other side does not know."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Request(BaseModel):
    """A request part: an unknown field is a typo to report here, not something to send."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Answer(BaseModel):
    """An answer: fields the server adds later are kept (``model_extra``), not refused."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


class CamelRequest(Request):
    """memory-service speaks camelCase; Python code may use snake_case names for the same fields."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, alias_generator=to_camel)


class OffsetPaging(Request):
    """Pages by position (EverMemOS, ARK): ``limit`` rows from ``offset``."""

    limit: Optional[int] = None
    offset: Optional[int] = None


class CursorPaging(CamelRequest):
    """Pages by cursor (memory-service): up to ``limit`` rows after the id ``after``."""

    after: Optional[str] = None
    limit: Optional[int] = None


class CamelAnswer(Answer):
    model_config = ConfigDict(extra="allow", populate_by_name=True, alias_generator=to_camel)
