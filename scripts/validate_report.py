#!/usr/bin/python3
"""Validate a readbench JSON report against the JSON Schema (2020-12).

usage: validate_report.py REPORT [SCHEMA]

REPORT may be - for stdin. SCHEMA defaults to schemas/readbench-report.schema.json beside
this script's directory. Exit status: 0 valid, 1 invalid (the first error on one line on
stderr), 2 usage (bad arguments, an unreadable file, a schema that is not valid 2020-12).
Needs only python3-jsonschema (Debian) and the standard library.
"""
import json
import os
import sys

try:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError, best_match
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"validate_report.py: needs python3-jsonschema >= 4: {e}", file=sys.stderr)
    sys.exit(2)

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                              "schemas", "readbench-report.schema.json")


def one_line(text, limit=300):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def usage(message):
    print(f"validate_report.py: {one_line(message)} (usage: validate_report.py REPORT [SCHEMA])",
          file=sys.stderr)
    sys.exit(2)


def read_text(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv):
    if len(argv) not in (2, 3) or argv[1] in ("-h", "--help"):
        usage("expected a report and optionally a schema")
    report_path = argv[1]
    schema_path = argv[2] if len(argv) == 3 else DEFAULT_SCHEMA

    try:
        schema = json.loads(read_text(schema_path))
        Draft202012Validator.check_schema(schema)
    except OSError as e:
        usage(f"cannot read schema '{schema_path}': {e.strerror}")
    except ValueError as e:
        usage(f"schema '{schema_path}' is not JSON: {e}")
    except SchemaError as e:
        usage(f"schema '{schema_path}' is not a valid 2020-12 schema: {e.message}")

    try:
        text = read_text(report_path)
    except OSError as e:
        usage(f"cannot read report '{report_path}': {e.strerror}")
    try:
        # Python accepts NaN and Infinity, JSON does not.
        def reject(token):
            raise ValueError(f"{token} is not a JSON number")
        report = json.loads(text, parse_constant=reject)
    except ValueError as e:
        print(f"{report_path}: invalid: not JSON: {one_line(e)}", file=sys.stderr)
        return 1

    error = best_match(Draft202012Validator(schema).iter_errors(report))
    if error is not None:
        where = "/" + "/".join(str(p) for p in error.absolute_path)
        print(f"{report_path}: invalid at {where}: {one_line(error.message)}", file=sys.stderr)
        return 1
    print(f"{report_path}: valid")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
