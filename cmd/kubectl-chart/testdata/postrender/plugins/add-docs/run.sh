#!/bin/sh
# Adds a hook of its own and a resource without a file annotation.
cat
printf -- "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added-hook\n  annotations:\n    helm.sh/hook: post-install\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added\n"
