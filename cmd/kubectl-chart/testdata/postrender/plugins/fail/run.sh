#!/bin/sh
# Fails, saying why on stderr.
cat >/dev/null
echo "post-renderer failed on purpose" >&2
exit 3
