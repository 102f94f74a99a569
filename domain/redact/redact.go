// Package redact removes secrets from text meant for people: the password of every
// URL's user information, wherever the URL appears in a message (quoted, inside an
// error of the URL parser, or not parseable at all).
package redact

import "regexp"

// userinfo matches scheme://user:password@ and captures what precedes the password.
var userinfo = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://[^\s/?#@:"'<>]*:)[^\s/?#@"'<>]+@`)

// Credentials replaces the password of every URL in s with "***", as Go's HTTP
// client does in its errors.
func Credentials(s string) string {
	return userinfo.ReplaceAllString(s, "${1}***@")
}
