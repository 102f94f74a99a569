package action

import (
	"errors"
	"fmt"

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

// installApplyMethod is the apply method of a first revision: server-side,
// unless the user asked for client-side apply, which is refused.
func installApplyMethod(s ServerSide) (release.ApplyMethod, error) {
	if s == ServerSideFalse {
		return "", ErrClientSideApply
	}
	return release.ApplyServerSide, nil
}

// changeApplyMethod is the apply method an upgrade or rollback records,
// from --server-side and the apply method of the revision Helm 4 looks at
// (the latest for an upgrade, the one rolled back to for a rollback).
//
// Objects are always applied server-side (taking over the fields Helm wrote
// client-side). What the revision records is for Helm 4, which reads it to
// choose how its next operation applies (auto): true records "ssa"; auto
// keeps the release's method as it was, absent included, so that Helm 4
// carries on as it would have without us — a release Helm applies
// client-side (installed by Helm 3, or by Helm 4 with --server-side=false)
// stays client-side for Helm, whose three-way patches work on objects we
// applied and never conflict with our field manager, and a server-side one
// stays server-side.
func changeApplyMethod(s ServerSide, previous release.ApplyMethod) (release.ApplyMethod, error) {
	switch s {
	case ServerSideFalse:
		return "", ErrClientSideApply
	case ServerSideTrue:
		return release.ApplyServerSide, nil
	case "", ServerSideAuto:
		return previous, nil
	}
	return "", fmt.Errorf("invalid/unknown release server-side apply method: %s", s)
}
