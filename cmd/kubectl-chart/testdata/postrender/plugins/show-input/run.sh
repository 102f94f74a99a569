#!/bin/sh
# Returns its input and, in a ConfigMap, the input itself: the stream handed over shows.
in=$(cat)
printf '%s\n' "$in"
printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stream\ndata:\n  input: |\n'
printf '%s\n' "$in" | sed 's/^/    /'
