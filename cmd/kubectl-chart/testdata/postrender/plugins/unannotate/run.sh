#!/bin/sh
# Removes the file annotations Helm 4 adds: every document comes back as a file of its own.
sed "/postrender-filename/d"
