package memcluster

import (
	"fmt"
	"regexp"
)

// Object names as the API server validates them: RFC 1123 labels for the
// kinds whose names become DNS labels (Services, Namespaces), RFC 1123
// subdomains for the rest, in the server's words.
var (
	labelName     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	subdomainName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

const (
	labelRule     = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	subdomainRule = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
)

// nameProblems are what the server says of an invalid name of a kind.
func nameProblems(k *kindInfo, name string) []string {
	re, rule, most := subdomainName, subdomainRule, 253
	if k.group == "" && (k.kind == "Service" || k.kind == "Namespace") {
		re, rule, most = labelName, labelRule, 63
	}
	var problems []string
	if len(name) > most {
		problems = append(problems, fmt.Sprintf("metadata.name: Invalid value: %q: must be no more than %d characters", name, most))
	}
	if !re.MatchString(name) {
		problems = append(problems, fmt.Sprintf("metadata.name: Invalid value: %q: %s", name, rule))
	}
	return problems
}
