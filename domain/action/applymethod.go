package action

import (
	"errors"
	"fmt"

	"github.com/kubectl-chart/kubectl-chart/domain/dialect"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
)

// ServerSide is Helm 4's --server-side: how an operation applies objects and
// which apply method its revision records.
type ServerSide string

// --server-side values. The zero value is ServerSideAuto for upgrade and
// rollback and ServerSideTrue for install, as Helm 4's defaults are.
const (
	ServerSideAuto  ServerSide = "auto"
	ServerSideTrue  ServerSide = "true"
	ServerSideFalse ServerSide = "false"
)

// ErrClientSideApply refuses --server-side=false: kubectl-chart applies
// server-side only.
var ErrClientSideApply = errors.New("--server-side=false (client-side apply) is not supported: kubectl chart applies objects server-side only; use --server-side=auto or true")

// ParseServerSide reads --server-side, with Helm 4's words for a value it
// does not know.
func ParseServerSide(s string) (ServerSide, error) {
	switch v := ServerSide(s); v {
	case "", ServerSideAuto, ServerSideTrue, ServerSideFalse:
		return v, nil
	}
	return "", fmt.Errorf("invalid/unknown release server-side apply method: %s", s)
}

// installApplyMethod is the apply method a first revision records: none in
// the Helm 3 dialect (Helm 3 records none, and its absence is what marks the
// revision as rendered by Helm 3's rules, see release.Dialect), else
// server-side, as Helm 4's install. Client-side apply is refused.
func installApplyMethod(d dialect.Dialect, s ServerSide) (release.ApplyMethod, error) {
	if s == "" {
		s = ServerSideTrue
	}
	return changeApplyMethod(d, s, release.ApplyServerSide)
}

// changeApplyMethod is the apply method an upgrade or rollback records, from
// the dialect the revision is rendered in, --server-side and the apply method
// of the revision Helm 4 looks at (the latest for an upgrade, the one rolled
// back to for a rollback).
//
// Objects are always applied server-side (taking over the fields Helm wrote
// client-side). What the revision records is for Helm, which reads it to
// choose how its next operation applies (auto), and for the next upgrade of
// either tool, which renders in the dialect it marks. A Helm 3 revision
// records none, as Helm 3 would. Otherwise true records "ssa" and auto keeps
// the method as it was; a release without one (Helm 3's) records "csa", as
// Helm 4 does when it upgrades such a release — Helm then goes on applying
// client-side, whose three-way patches work on objects we applied and never
// conflict with our field manager.
func changeApplyMethod(d dialect.Dialect, s ServerSide, previous release.ApplyMethod) (release.ApplyMethod, error) {
	switch s {
	case ServerSideFalse:
		return "", ErrClientSideApply
	case "", ServerSideAuto, ServerSideTrue:
	default:
		return "", fmt.Errorf("invalid/unknown release server-side apply method: %s", s)
	}
	switch {
	case !d.IsHelm4():
		return "", nil
	case s == ServerSideTrue:
		return release.ApplyServerSide, nil
	case previous == "":
		return release.ApplyClientSide, nil
	}
	return previous, nil
}
