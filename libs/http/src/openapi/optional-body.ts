/**
 * Marks a route's body schema as one a request may leave out (the route's `emptyBody`). The
 * OpenAPI generator says every body is required; the document's last pass (markOptionalBodies)
 * turns the mark into `requestBody.required: false`, so the document says exactly what the
 * validation takes.
 */
export const OPTIONAL_BODY = 'x-memstream-optional-body';

interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Record<string, unknown> }> };
}

/** Turns each marked body into an optional one and removes the mark. */
export function markOptionalBodies<T extends { paths?: object | undefined }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {}) as Array<Record<string, unknown> | undefined>) {
    for (const operation of Object.values(operations ?? {}) as Operation[]) {
      const body = operation?.requestBody;
      if (!body?.content) continue;
      let optional = false;
      for (const media of Object.values(body.content)) {
        if (media.schema && OPTIONAL_BODY in media.schema) {
          optional = true;
          delete media.schema[OPTIONAL_BODY];
        }
      }
      if (optional) body.required = false;
    }
  }
  return document;
}
