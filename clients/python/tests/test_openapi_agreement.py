"""The client and the server agree when every operation in openapi.json is a client method and
every client method an operation in it, with the same parameters, body fields and answer fields
(names, required-ness and enumerations). openapi.json is read as it is now, at test time: a route
or a field added on either side fails here and names what drifted. MEMSTREAM_OPENAPI points at
another copy (to see the test fail on a changed one)."""

from __future__ import annotations

import json
import os
import typing
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple, Type

from pydantic import BaseModel

from memstream._operation import Operation
from memstream.families.admin import Admin
from memstream.families.ark import Ark
from memstream.families.evermemos import EverMemOs
from memstream.families.kaos import Kaos
from memstream.families.memory_agent import MemoryAgent
from memstream.families.memory_service import AgentConversations, CodeConversations, UserConversations
from memstream.routes import Route

FAMILIES = [EverMemOs, Ark, MemoryAgent, UserConversations, CodeConversations, AgentConversations, Kaos, Admin]
DEFAULT = Path(__file__).resolve().parents[3] / "openapi.json"


def document() -> Dict[str, Any]:
    return json.loads(Path(os.environ.get("MEMSTREAM_OPENAPI", DEFAULT)).read_text())


def operations() -> Iterator[Tuple[str, Operation[Any, Any], Route]]:
    for family in FAMILIES:
        for name in dir(family):
            if not name.startswith("_") and name != "routes":
                op = getattr(family, name)
                yield f"{family.__name__}.{name}", op, op.route_for(family) if isinstance(op, Operation) else None


def key(route: Route) -> str:
    return f"{route.method} {route.path}"


def documented_operations(doc: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    return {f"{method.upper()} {path}": op for path, ops in doc["paths"].items() for method, op in ops.items()}


def test_every_public_family_method_is_an_operation():
    assert [name for name, op, _ in operations() if not isinstance(op, Operation)] == []


def test_the_client_calls_exactly_the_operations_openapi_json_documents():
    documented = set(documented_operations(document()))
    called = {key(route) for _, _, route in operations()}
    missing, extra = sorted(documented - called), sorted(called - documented)
    assert not missing, "documented in openapi.json, and no client method calls it:\n" + "\n".join(missing)
    assert not extra, "called by the client, and not in openapi.json:\n" + "\n".join(extra)


# The comparison of a model with a JSON schema object, field by field, nested objects included.

def enums(node: Any) -> Set[str]:
    """Every enumerated value under a schema node (its anyOf branches and items), not following $ref."""
    if not isinstance(node, dict):
        return set()
    found = {json.dumps(v) for v in node.get("enum", [])} | ({json.dumps(node["const"])} if "const" in node else set())
    for branch in node.get("anyOf", []) + [node.get("items")]:
        found |= enums(branch)
    return found


def models_in(annotation: Any) -> List[Type[BaseModel]]:
    """The models an annotation holds: itself, or inside Optional, Union, List, Dict, generics."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in models_in(arg)]


def objects_in(node: Any) -> List[Dict[str, Any]]:
    """The object schemas with properties a schema node holds, directly or in anyOf branches and items."""
    if not isinstance(node, dict):
        return []
    own = [node] if "properties" in node else []
    return own + [o for branch in node.get("anyOf", []) + [node.get("items")] for o in objects_in(branch)]


def compare(model: Type[BaseModel], schema: Dict[str, Any], where: str) -> List[str]:
    fields = {(f.alias or name): f for name, f in model.model_fields.items()}
    props: Dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    out = [f"{where}: {name} is documented, not in {model.__name__}" for name in props if name not in fields]
    out += [f"{where}: {name} is in {model.__name__}, not documented" for name in fields if name not in props]
    own_schema = model.model_json_schema(by_alias=True)["properties"] if fields else {}
    for name in props.keys() & fields.keys():
        if fields[name].is_required() != (name in required):
            out.append(f"{where}: {name} is {'required' if name in required else 'optional'} in openapi.json, not in {model.__name__}")
        if enums(props[name]) != enums(own_schema.get(name)):
            out.append(f"{where}: {name} allows {sorted(enums(props[name]))} in openapi.json, {sorted(enums(own_schema.get(name)))} in {model.__name__}")
        inner = objects_in(props[name])
        nested = models_in(fields[name].annotation)
        if inner and nested:
            out += compare(nested[0], inner[0], f"{where}.{name}")
    return out


def merged(shapes: List[Dict[str, Any]]) -> Dict[str, Any]:
    props: Dict[str, Any] = {}
    for shape in shapes:
        for name, schema in shape["properties"].items():
            props.setdefault(name, schema)
    required = set.intersection(*(set(shape.get("required", [])) for shape in shapes))
    return {"properties": props, "required": sorted(required)}


def parameters(op: Dict[str, Any], where: str) -> Dict[str, Any]:
    """The parameters a request carries: an object parameter of the query (form style and exploded,
    as OpenAPI has them by default) is its fields, each a key of the query string of its own."""
    properties: Dict[str, Any] = {}
    required: List[str] = []
    for p in (p for p in op.get("parameters", []) if p["in"] == where):
        schema = p["schema"]
        if where == "query" and schema.get("type") == "object" and "properties" in schema:
            properties.update(schema["properties"])
            required += [name for name in schema.get("required", []) if p["required"]]
        else:
            properties[p["name"]] = schema
            required += [p["name"]] if p["required"] else []
    return {"properties": properties, "required": required}


def test_each_operation_parameters_and_body_fields_are_the_documented_ones():
    documented = documented_operations(document())
    disagreements: List[str] = []
    for route in {route for _, _, route in operations()}:
        op = documented.get(key(route))
        if op is None:
            continue  # the test above names it
        for where, model in (("path", route.params), ("query", route.query), ("header", route.headers)):
            schema = parameters(op, where)
            if model is None:
                disagreements += [f"{key(route)}: {where} parameter {name} is documented, the client sends none" for name in schema["properties"]]
            else:
                disagreements += compare(model, schema, f"{key(route)} {where}")
        bodies = [c["schema"] for c in op.get("requestBody", {}).get("content", {}).values()]
        if bool(bodies) != (route.body is not None):
            disagreements.append(f"{key(route)}: a body is {'documented' if bodies else 'sent'}, not {'sent' if bodies else 'documented'}")
        for body in bodies:
            shapes = objects_in(body) or [b for b in body.get("anyOf", [body]) if b.get("type") == "object"]
            if len(shapes) > 1 and "anyOf" in body:
                # one of several forms (EverMemOS's DELETE names at least one filter): the client's one
                # model carries every form's fields, required only where every form requires them
                shapes = [merged(shapes)]
            disagreements += compare(route.body, shapes[0], f"{key(route)} body") if route.body and shapes else []
    assert not disagreements, "openapi.json and the client disagree:\n" + "\n".join(sorted(disagreements))


def answer_models(route: Route) -> List[Type[BaseModel]]:
    """The models the methods calling this route parse its answers into (generics resolved)."""
    return [m for _, op, r in operations() if r == route for m in models_in(op.answer_type)]


def test_each_documented_answer_has_a_model_with_its_fields():
    documented = documented_operations(document())
    disagreements: List[str] = []
    for route in {route for _, _, route in operations()}:
        op = documented.get(key(route), {})
        for status, answer in op.get("responses", {}).items():
            schema: Optional[Dict[str, Any]] = answer.get("content", {}).get("application/json", {}).get("schema")
            if not status.startswith("2") or not schema or "properties" not in schema:
                continue
            where = f"{key(route)} answer {status}"
            candidates = [compare(m, schema, where) for m in answer_models(route)]
            best = min(candidates, key=len, default=[f"{where}: no answer model"])
            disagreements += best
    assert not disagreements, "openapi.json and the client disagree:\n" + "\n".join(sorted(disagreements))
