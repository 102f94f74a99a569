#!/bin/sh
# Adds a document without kind or metadata.
cat
printf -- "---\nfoo: bar\n"
