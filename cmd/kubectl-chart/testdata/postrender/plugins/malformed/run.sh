#!/bin/sh
# Returns malformed YAML.
cat >/dev/null
printf "a: [\n"
