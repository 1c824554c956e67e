"""Offline validation of deployment files for test/deploy, run in the venv that tools.sh makes.

  validate.py kubernetes VERSION   stdin: a JSON list of objects. stdout: a JSON list, one
                                   {"kind", "name", "status", "message"} per object, status being
                                   valid, invalid, or no-schema (a custom resource the Kubernetes
                                   schemas do not describe; the caller validates those itself).
                                   Strict: a field the schema does not know is an error.
  validate.py compose              stdin: a Compose file as JSON (anchors and merge keys resolved).
                                   stdout: {"valid": bool, "message": str}.
"""
import json
import sys


def kubernetes(version: str) -> list:
    import kubernetes_validate

    results = []
    for obj in json.load(sys.stdin):
        entry = {"kind": obj.get("kind"), "name": (obj.get("metadata") or {}).get("name"), "message": ""}
        try:
            kubernetes_validate.validate(obj, version, strict=True)
            entry["status"] = "valid"
        except kubernetes_validate.SchemaNotFoundError as err:
            entry["status"] = "no-schema"
            entry["message"] = err.message
        except kubernetes_validate.ValidationError as err:
            entry["status"] = "invalid"
            path = ".".join(str(p) for p in err.path)
            entry["message"] = f"{path}: {err.message}" if path else err.message
        results.append(entry)
    return results


def compose() -> dict:
    from compose_spec import PyCompose

    try:
        PyCompose.from_json(sys.stdin.read())
        return {"valid": True, "message": ""}
    except ValueError as err:
        return {"valid": False, "message": str(err)}


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "kubernetes" and len(sys.argv) == 3:
        out = kubernetes(sys.argv[2])
    elif mode == "compose":
        out = compose()
    else:
        sys.exit(__doc__)
    json.dump(out, sys.stdout)
