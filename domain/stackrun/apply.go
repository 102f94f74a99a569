package stackrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-chart/kubectl-chart/domain/action"
	"github.com/kubectl-chart/kubectl-chart/domain/plan"
	"github.com/kubectl-chart/kubectl-chart/domain/release"
	"github.com/kubectl-chart/kubectl-chart/domain/stack"
	"github.com/kubectl-chart/kubectl-chart/ports"
)

// Applier carries a stack plan out exactly.
type Applier struct {
	Targets Targets
	// Concurrency bounds the releases applied at once; 0 is unlimited
	// (helmfile's --concurrency).
	Concurrency int
	// HistoryMax bounds each release's revisions (0: unlimited).
	HistoryMax int
	// Events, when set, is told how each release goes; it is called from
	// many goroutines at once.
	Events func(Event)
	Clock  ports.Clock
	// Replan, when set (apply without a saved plan), plans a release again
	// when its plan went stale before its turn: a controller updated one of
	// its objects, or a release applied before it changed one they share;
	// and before its turn when its templates look objects up and a release
	// it comes after was applied (helmfile renders each release after its
	// needs are deployed). Nil (--use-plan) refuses a stale plan.
	Replan func(context.Context, stack.ID) (stack.Action, *plan.Plan, error)
}

// Apply checks first, across every context, that each release's latest
// revision and every object its plan touches are as they were planned and
// that every permission is there, refusing the whole plan, with nothing
// changed anywhere, when not; then applies the releases, each once the
// releases it comes after are done (and ready when they wait), at most
// Concurrency at once. A release that fails stops the releases after it;
// the others go on. The summary says what happened to each.
func (a *Applier) Apply(ctx context.Context, p *stack.Plan) (*Summary, error) {
	lcs, err := a.lifecycles(ctx, p)
	if err != nil {
		return nil, err
	}
	if err := a.check(ctx, p, lcs); err != nil {
		return nil, err
	}
	return a.run(ctx, p, lcs), nil
}

// lifecycles resolves every context of the plan before anything is read.
func (a *Applier) lifecycles(ctx context.Context, p *stack.Plan) (map[string]*action.Lifecycle, error) {
	out := map[string]*action.Lifecycle{}
	var errs []error
	for _, r := range p.Releases {
		if _, ok := out[r.ID.KubeContext]; ok {
			continue
		}
		lc, err := a.Targets.Lifecycle(ctx, r.ID.KubeContext)
		if err != nil {
			errs = append(errs, err)
		}
		out[r.ID.KubeContext] = lc
	}
	return out, errors.Join(errs...)
}

// check verifies the whole plan and its permissions before anything changes,
// the releases at once (at most Concurrency), each kind of each namespace
// listed once for all of them. Without a saved plan (Replan set) the plan was
// made a moment ago and a release found stale would only be planned again at
// its turn, where its unit of work verifies it under its lock anyway: then
// only the permissions of the releases that change, and that the releases
// planned as absent still are, are checked.
func (a *Applier) check(ctx context.Context, p *stack.Plan, lcs map[string]*action.Lifecycle) error {
	shared := make(map[string]*action.Lifecycle, len(lcs))
	for name, lc := range lcs {
		shared[name] = withSharedReads(lc)
	}
	stale := make([][]string, len(p.Releases))
	errs := make([]error, len(p.Releases))
	forEach(ctx, len(p.Releases), a.Concurrency, func(ctx context.Context, i int) {
		r := p.Releases[i]
		stale[i], errs[i] = a.checkRelease(ctx, r, shared[r.ID.KubeContext])
		if errs[i] != nil {
			errs[i] = fmt.Errorf("release %s: %w", r.ID, errs[i])
		}
	})
	var changes []string
	for i, r := range p.Releases {
		for _, c := range stale[i] {
			changes = append(changes, fmt.Sprintf("release %s: %s", r.ID, c))
		}
	}
	if len(changes) > 0 {
		errs = append([]error{&action.StaleError{Changes: changes}}, errs...)
	}
	return errors.Join(errs...)
}

// checkRelease checks one release of the plan (see check): what changed
// since it was planned, or why it cannot be applied.
func (a *Applier) checkRelease(ctx context.Context, r stack.ReleasePlan, lc *action.Lifecycle) ([]string, error) {
	if r.Plan != nil && r.Plan.Cluster != lc.ClusterServer {
		return nil, fmt.Errorf("%w: it was made for the cluster at %s, not %s", action.ErrPlanMismatch, r.Plan.Cluster, lc.ClusterServer)
	}
	preflight := r.Plan != nil && r.Action.Changes() && !lc.SkipPreflight
	if r.Plan != nil && a.Replan != nil && !preflight {
		return nil, nil
	}
	h, err := lc.Store.History(ctx, r.ID.Namespace, r.ID.Name)
	if err != nil && !errors.Is(err, ports.ErrReleaseNotFound) {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if r.Plan == nil {
		if latest := release.History(h).Latest(); latest != nil && latest.Info != nil && latest.Info.Status != release.StatusUninstalled {
			return []string{fmt.Sprintf("it was installed since the plan was made (revision %d)", latest.Version)}, nil
		}
		return nil, nil
	}
	if a.Replan == nil {
		var se *action.StaleError
		switch err := lc.Planner().Verify(ctx, r.Plan, h); {
		case errors.As(err, &se):
			return se.Changes, nil
		case err != nil:
			return nil, err
		}
	}
	if !preflight {
		return nil, nil
	}
	pf := &action.Preflight{Store: lc.Store, Locker: lc.Locker, Exec: execOptions(r, a.HistoryMax)}
	return nil, lc.Planner().Preflight(ctx, r.Plan, h, pf)
}

func execOptions(r stack.ReleasePlan, historyMax int) action.ExecOptions {
	return action.ExecOptions{WaitSpec: waitSpec(r.Wait, r.WaitForJobs, r.Timeout), HistoryMax: historyMax}
}

func waitSpec(wait, waitForJobs bool, timeout time.Duration) action.WaitSpec {
	return action.WaitSpec{Wait: wait, WaitForJobs: waitForJobs, Timeout: timeout}
}

// run applies the releases in the order of their After, at most Concurrency
// at once.
func (a *Applier) run(ctx context.Context, p *stack.Plan, lcs map[string]*action.Lifecycle) *Summary {
	sum := &Summary{Results: make([]Result, len(p.Releases))}
	index := make(map[stack.ID]int, len(p.Releases))
	for i, r := range p.Releases {
		index[r.ID] = i
		sum.Results[i] = Result{ID: r.ID, Action: r.Action, State: StatePending}
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		done = make(chan int, len(p.Releases))
	)
	limit := a.Concurrency
	running := 0
	// ready says whether release i may start, and which release stops it
	// when one it comes after failed or did not start.
	ready := func(i int) (bool, []stack.ID) {
		var blocked []stack.ID
		for _, id := range p.Releases[i].After {
			switch sum.Results[index[id]].State {
			case StateFailed, StateNotStarted:
				blocked = append(blocked, id)
			case StateApplied, StateUnchanged, StateAbsent:
			default:
				return false, nil
			}
		}
		return len(blocked) == 0, blocked
	}
	for {
		mu.Lock()
		progressed := true
		for progressed {
			progressed = false
			for _, id := range flatten(p.Waves) {
				i := index[id]
				if sum.Results[i].State != StatePending {
					continue
				}
				ok, blocked := ready(i)
				if len(blocked) > 0 {
					sum.Results[i].State, sum.Results[i].BlockedBy = StateNotStarted, blocked
					a.emit(Event{Release: id, Type: EventNotStarted, Message: "not started: " + joinIDs(blocked) + " did not succeed"})
					progressed = true
					continue
				}
				if !ok || (limit > 0 && running >= limit) {
					continue
				}
				r := p.Releases[i]
				if a.rendersAfter(r, func(id stack.ID) bool { return sum.Results[index[id]].State == StateApplied }) {
					sum.Results[i].State = StateRunning
					running++
					wg.Go(func() {
						state, err := a.replanAndApply(ctx, lcs[r.ID.KubeContext], r)
						mu.Lock()
						running--
						a.finish(sum, i, r, state, err)
						mu.Unlock()
						done <- i
					})
					continue
				}
				if !r.Action.Changes() {
					sum.Results[i].State = StateUnchanged
					if r.Action == stack.ActionAbsent {
						sum.Results[i].State = StateAbsent
					}
					a.emit(Event{Release: id, Type: EventDone, Action: r.Action, Message: string(sum.Results[i].State)})
					progressed = true
					continue
				}
				sum.Results[i].State = StateRunning
				running++
				a.emit(Event{Release: id, Type: EventStart, Action: r.Action})
				wg.Go(func() {
					err := a.applyRelease(ctx, lcs[r.ID.KubeContext], r, true)
					mu.Lock()
					running--
					a.finish(sum, i, r, StateApplied, err)
					mu.Unlock()
					done <- i
				})
			}
		}
		left := running
		mu.Unlock()
		if left == 0 {
			break
		}
		<-done
	}
	wg.Wait()
	return sum
}

// finish records how release i ended: state, or failed with err.
func (a *Applier) finish(sum *Summary, i int, r stack.ReleasePlan, state State, err error) {
	if err != nil {
		sum.Results[i].State, sum.Results[i].Err = StateFailed, err
		a.emit(Event{Release: r.ID, Type: EventFailed, Action: r.Action, Message: err.Error()})
		return
	}
	sum.Results[i].State = state
	a.emit(Event{Release: r.ID, Type: EventDone, Action: r.Action, Message: string(state)})
}

// rendersAfter reports whether release r is planned again before its turn:
// without a saved plan, when its templates looked objects up and a release
// it comes after was applied by this run, which may have changed them.
func (a *Applier) rendersAfter(r stack.ReleasePlan, applied func(stack.ID) bool) bool {
	if a.Replan == nil || r.Plan == nil || !r.Plan.LookedUp {
		return false
	}
	return slices.ContainsFunc(r.After, applied)
}

// replanAndApply plans release r again and carries the new plan out, or
// leaves the release unchanged when the new plan changes nothing.
func (a *Applier) replanAndApply(ctx context.Context, base *action.Lifecycle, r stack.ReleasePlan) (State, error) {
	act, pl, err := a.Replan(ctx, r.ID)
	if err != nil {
		return "", err
	}
	r.Action, r.Plan = act, pl
	switch {
	case act == stack.ActionAbsent:
		return StateAbsent, nil
	case !act.Changes():
		return StateUnchanged, nil
	}
	a.emit(Event{Release: r.ID, Type: EventStart, Action: r.Action})
	// Its permissions were checked for the plan made before, if any.
	return StateApplied, a.applyRelease(ctx, base, r, false)
}

// applyRelease carries one release's plan out in its unit of work, which
// checks again under the lock that nothing changed since it was planned.
// Its permissions were checked with the whole plan's (check) when checked;
// those of a plan made again here are checked before it is carried out.
func (a *Applier) applyRelease(ctx context.Context, base *action.Lifecycle, r stack.ReleasePlan, checked bool) error {
	lc := *base
	if a.Events != nil {
		lc.Events = func(e action.Event) { a.emit(Event{Release: r.ID, Type: EventProgress, Action: r.Action, Detail: &e}) }
	}
	lc.SkipPreflight = checked || base.SkipPreflight
	err := execute(ctx, &lc, r, r.Plan, a.HistoryMax)
	if errors.Is(err, action.ErrPlanStale) && a.Replan != nil {
		// Refused under the lock before anything changed: plan it anew.
		_, pl, perr := a.Replan(ctx, r.ID)
		if perr != nil {
			return perr
		}
		if pl == nil {
			return nil
		}
		lc.SkipPreflight = base.SkipPreflight
		err = execute(ctx, &lc, r, pl, a.HistoryMax)
	}
	return err
}

// execute carries one release's plan out in its unit of work.
func execute(ctx context.Context, lc *action.Lifecycle, r stack.ReleasePlan, pl *plan.Plan, historyMax int) error {
	command := pl.Command
	if command == "" {
		command = plan.OpUpgrade
	}
	_, err := lc.ExecuteSaved(ctx, action.SavedPlanRequest{
		Plan: pl, Command: command, ReleaseName: r.ID.Name, Namespace: r.ID.Namespace, ExecOptions: execOptions(r, historyMax),
	})
	return err
}

func (a *Applier) emit(e Event) {
	if a.Events == nil {
		return
	}
	if a.Clock != nil {
		e.Time = a.Clock.Now()
	}
	a.Events(e)
}

func flatten(waves [][]stack.ID) []stack.ID {
	var out []stack.ID
	for _, w := range waves {
		out = append(out, w...)
	}
	return out
}

func joinIDs(ids []stack.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}
