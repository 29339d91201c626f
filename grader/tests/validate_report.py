#!/usr/bin/env python3
"""Validates a grader JSON report against docs/report-schema.json: validate_report.py SCHEMA REPORT."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.validate(report, schema)
print(f"{sys.argv[2]} matches {sys.argv[1]}")
