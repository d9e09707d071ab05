#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate results.json files against reports/results.schema.json (JSON Schema 2020-12).

usage: results-schema.py SCHEMA RESULTS.json...
Prints each violation as FILE: PATH: MESSAGE; exit 1 when there is one, 2 on bad use."""
import json
import sys

from jsonschema import Draft202012Validator


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.path))):
            where = "/".join(map(str, e.path)) or "(root)"
            print(f"{path}: {where}: {e.message}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
