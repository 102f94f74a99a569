// Package ports declares what the domain needs from the outside world (chart
// sources, release storage, the cluster, a clock, progress reporting) as small
// interfaces; adapters implement them and the contract suites check them.
package ports
