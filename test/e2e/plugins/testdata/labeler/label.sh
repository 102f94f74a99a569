#!/bin/sh
# Adds a label to every object of the manifest on stdin: a metadata: line at the
# start of a line is an object's own metadata in the charts this test renders.
sed 's/^metadata:$/metadata:\n  labels:\n    post-rendered: "'"${1:-yes}"'"/'
