"""Prints openapi.yaml as JSON, read by PyYAML (the tests hold the endpoint table against it)."""
import json
import sys

import yaml

with open(sys.argv[1], encoding="utf-8") as spec:
    json.dump(yaml.safe_load(spec), sys.stdout)
