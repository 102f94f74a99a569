// Package action holds the release operations (install, upgrade, rollback,
// uninstall, test, drift) that change a cluster: a read-only Planner makes a
// plan, which one unit of work (Lifecycle) carries out under the release's
// lock. Rendering, names, chart checks and release queries live in their own
// packages (render, releasename, chartcheck, query).
package action
