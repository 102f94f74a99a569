#!/bin/sh
# Adds a document that is not a mapping.
cat
printf -- "---\njust text\n"
