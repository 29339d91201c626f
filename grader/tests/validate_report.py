#!/usr/bin/env python3
"""Validates a JSON document against its schema: a grader report against docs/report-schema.json, a
gradebook against docs/gradebook-schema.json. validate_report.py SCHEMA DOCUMENT."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.validate(report, schema)
print(f"{sys.argv[2]} matches {sys.argv[1]}")
