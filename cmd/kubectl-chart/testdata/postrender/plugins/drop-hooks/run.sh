#!/bin/sh
# Drops every document that has a helm.sh/hook annotation.
buf=""
emit() {
	case "$buf" in *helm.sh/hook*) ;; *) printf "%s" "$buf" ;; esac
	buf=""
}
while IFS= read -r line || [ -n "$line" ]; do
	if [ "$line" = "---" ]; then emit; fi
	buf="$buf$line
"
done
emit
