// Package stackrun plans and applies a stack as one plan: each release's plan
// made by the release Planner, ordered by the releases' needs, verified as a
// whole before anything changes and applied release by release, each in its
// own lock-and-record unit of work (action.Lifecycle), across clusters.
package stackrun
