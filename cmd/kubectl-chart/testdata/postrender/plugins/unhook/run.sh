#!/bin/sh
# Removes the helm.sh/hook annotations: hooks become resources.
sed "/helm.sh\/hook/d"
