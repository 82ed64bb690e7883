package gangsim

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// quotaRecord is a ResourceQuota with what it counts and its usage:
// the tracked resources (those that count pods) of the pods of its
// namespace it matches, pods in a terminal phase counting count/pods
// only.
type quotaRecord struct {
	quota   cluster.ResourceQuota
	tracked []cluster.ResourceName
	used    cluster.ResourceList // every tracked resource, 0 included
}

// QuotaStatus is a ResourceQuota as the scheduler holds it: its limits and
// what the pods of its namespace use of them now (the tracked resources,
// those that count pods; a limit on anything else is kept and never
// applied).
type QuotaStatus struct {
	Quota cluster.ResourceQuota
	Used  cluster.ResourceList
}

// SetResourceQuota adds a ResourceQuota to its namespace, or replaces the
// one of the same name; its usage is counted from the pods the namespace
// holds now. From now on a pod created there is refused when it would
// take a tracked resource past its limit, or leaves unset in a container a
// cpu or memory request or limit the quota tracks, as the API server's
// ResourceQuota admission refuses it.
func (s *Scheduler) SetResourceQuota(q cluster.ResourceQuota) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := q.Validate(); err != nil {
		return err
	}
	if q.Namespace == "" {
		q.Namespace = cluster.DefaultNamespace
	}
	q.Hard, q.Scopes, q.ScopeSelector = q.Hard.Clone(), slices.Clone(q.Scopes), slices.Clone(q.ScopeSelector)
	rec := &quotaRecord{quota: q, tracked: q.Tracked()}
	rec.recount(s)
	if s.quotas == nil {
		s.quotas = map[string][]*quotaRecord{}
	}
	list := slices.DeleteFunc(slices.Clone(s.quotas[q.Namespace]), func(o *quotaRecord) bool { return o.quota.Name == q.Name })
	list = append(list, rec)
	slices.SortFunc(list, func(a, b *quotaRecord) int { return cmp.Compare(a.quota.Name, b.quota.Name) })
	s.quotas[q.Namespace] = list
	return nil
}

// recount counts the quota's usage from the pods of its namespace.
func (rec *quotaRecord) recount(s *Scheduler) {
	rec.used = cluster.ResourceList{}
	for _, name := range rec.tracked {
		rec.used[name] = 0
	}
	for r := range s.tracker.records.all() {
		p := r.info.Pod()
		if r.phase == PhaseDeleted || namespaceOf(p) != rec.quota.Namespace {
			continue
		}
		rec.charge(p, r.phase == PhaseSucceeded, 1)
	}
}

// charge adds (sign 1) or takes away (-1) a pod's usage, when the quota
// matches the pod.
func (rec *quotaRecord) charge(p *cluster.Pod, terminal bool, sign int64) {
	if !rec.quota.Matches(p) {
		return
	}
	usage := cluster.QuotaUsage(p, terminal)
	for _, name := range rec.tracked {
		rec.used[name] += sign * usage[name]
	}
}

// ResourceQuotas yields the status of every ResourceQuota, by namespace
// and name: copies, the caller's to change.
func (s *Scheduler) ResourceQuotas() iter.Seq[QuotaStatus] {
	return func(yield func(QuotaStatus) bool) {
		if s == nil {
			return
		}
		for _, ns := range slices.Sorted(maps.Keys(s.quotas)) {
			for _, rec := range s.quotas[ns] {
				q := rec.quota
				q.Hard, q.Scopes, q.ScopeSelector = q.Hard.Clone(), slices.Clone(q.Scopes), slices.Clone(q.ScopeSelector)
				if !yield(QuotaStatus{Quota: q, Used: rec.used.Clone()}) {
					return
				}
			}
		}
	}
}

// checkQuota is ResourceQuota admission for a pod about to be created:
// every quota of its namespace that matches it must find each container
// setting the cpu and memory it tracks, then have room for the pod's
// usage. It returns the refusal's message, or "".
func (s *Scheduler) checkQuota(p *cluster.Pod) string {
	quotas := s.quotas[namespaceOf(p)]
	var matching []*quotaRecord
	for _, rec := range quotas {
		if !rec.quota.Matches(p) {
			continue
		}
		if missing := cluster.QuotaMissing(p, rec.tracked); missing != "" {
			return fmt.Sprintf("pods %q is forbidden: failed quota: %s: must specify %s", p.Name, rec.quota.Name, missing)
		}
		matching = append(matching, rec)
	}
	if len(matching) == 0 {
		return ""
	}
	usage := cluster.QuotaUsage(p, false)
	for _, rec := range matching {
		requested, used, limited := cluster.ResourceList{}, cluster.ResourceList{}, cluster.ResourceList{}
		for _, name := range rec.tracked {
			if v := usage[name]; v != 0 && rec.used[name]+v > rec.quota.Hard[name] {
				requested[name], used[name], limited[name] = v, rec.used[name], rec.quota.Hard[name]
			}
		}
		if len(requested) > 0 {
			return fmt.Sprintf("pods %q is forbidden: exceeded quota: %s, requested: %s, used: %s, limited: %s",
				p.Name, rec.quota.Name, requested, used, limited)
		}
	}
	return ""
}

// chargeQuotas adds a pod's usage to its namespace's quotas (sign 1), or
// takes it away (-1); terminal counts count/pods only.
func (s *Scheduler) chargeQuotas(p *cluster.Pod, terminal bool, sign int64) {
	for _, rec := range s.quotas[namespaceOf(p)] {
		rec.charge(p, terminal, sign)
	}
}

// quotaEnded frees what a pod that ends as phase used of its quotas: all
// of it when deleted, all but count/pods when it succeeded (a terminal pod
// is stored still, and counts as a stored object only).
func (s *Scheduler) quotaEnded(r *podRecord, phase Phase) {
	if len(s.quotas) == 0 {
		return
	}
	p := r.info.Pod()
	s.chargeQuotas(p, r.phase == PhaseSucceeded, -1)
	if phase == PhaseSucceeded {
		s.chargeQuotas(p, true, 1)
	}
}

// checkQuotas recounts every quota's usage from the pods.
func (s *Scheduler) checkQuotas() error {
	for _, ns := range slices.Sorted(maps.Keys(s.quotas)) {
		for _, rec := range s.quotas[ns] {
			fresh := quotaRecord{quota: rec.quota, tracked: rec.tracked}
			fresh.recount(s)
			if !maps.Equal(fresh.used, rec.used) {
				return invariantError("resource quota %s counts %v used, the pods use %v", rec.quota.Key(), rec.used, fresh.used)
			}
		}
	}
	return nil
}

// cloneQuotas copies the quota records for a fork.
func cloneQuotas(m map[string][]*quotaRecord) map[string][]*quotaRecord {
	if m == nil {
		return nil
	}
	out := make(map[string][]*quotaRecord, len(m))
	for ns, list := range m {
		cp := make([]*quotaRecord, len(list))
		for i, rec := range list {
			c := *rec
			c.used = rec.used.Clone()
			cp[i] = &c
		}
		out[ns] = cp
	}
	return out
}
