package admission

import (
	"cmp"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/gangsim/gangsim/cluster"
)

// Quotas is the ResourceQuota admission plugin with the quotas it reads
// and their usage: it refuses a pod being created that a quota of its
// namespace leaves no room for (Check), and counts the pods created
// (Charge) and ended (Ended), as the API server's quota controller keeps
// each quota's status. The zero value holds none and admits every pod.
type Quotas struct {
	// byNamespace holds each namespace's quotas in name order
	byNamespace map[string][]*quotaRecord
}

// quotaRecord is a ResourceQuota with what it counts and its usage: the
// tracked resources (those that count pods) of the pods of its namespace
// it matches, pods in a terminal phase counting count/pods only.
type quotaRecord struct {
	quota   cluster.ResourceQuota
	tracked []cluster.ResourceName
	used    cluster.ResourceList // every tracked resource, 0 included
}

// QuotaStatus is a ResourceQuota as admission holds it: its limits and
// what the pods of its namespace use of them now (the tracked resources,
// those that count pods; a limit on anything else is kept and never
// applied).
type QuotaStatus struct {
	Quota cluster.ResourceQuota
	Used  cluster.ResourceList
}

// StoredPods yields the pods a quota's usage is counted from: every pod
// the API server stores (created, not deleted), and whether it is in a
// terminal phase (succeeded), which counts count/pods only. nil yields
// none.
type StoredPods = iter.Seq2[*cluster.Pod, bool]

func orNone(pods StoredPods) StoredPods {
	if pods == nil {
		return func(func(*cluster.Pod, bool) bool) {}
	}
	return pods
}

// Set adds a ResourceQuota to its namespace ("" is the default one), or
// replaces the one of the same name, a copy of q; its usage is counted
// from the pods of the namespace among pods (nil: none yet). From now on Check refuses a
// pod created there that would take a tracked resource past its limit, or
// leaves unset in a container a cpu or memory request or limit the quota
// tracks, as the API server's ResourceQuota admission refuses it.
func (qs *Quotas) Set(q cluster.ResourceQuota, pods StoredPods) error {
	if err := q.Validate(); err != nil {
		return err
	}
	if q.Namespace == "" {
		q.Namespace = cluster.DefaultNamespace
	}
	rec := &quotaRecord{quota: cloneQuota(q), tracked: q.Tracked()}
	rec.used = rec.zero()
	for p, terminal := range orNone(pods) {
		if namespaceOf(p) == q.Namespace {
			rec.charge(p, terminal, 1)
		}
	}
	if qs.byNamespace == nil {
		qs.byNamespace = map[string][]*quotaRecord{}
	}
	list := slices.DeleteFunc(slices.Clone(qs.byNamespace[q.Namespace]), func(o *quotaRecord) bool { return o.quota.Name == q.Name })
	list = append(list, rec)
	slices.SortFunc(list, func(a, b *quotaRecord) int { return cmp.Compare(a.quota.Name, b.quota.Name) })
	qs.byNamespace[q.Namespace] = list
	return nil
}

func cloneQuota(q cluster.ResourceQuota) cluster.ResourceQuota {
	q.Hard, q.Scopes, q.ScopeSelector = q.Hard.Clone(), slices.Clone(q.Scopes), slices.Clone(q.ScopeSelector)
	return q
}

// zero returns a usage of nothing: every tracked resource at 0.
func (rec *quotaRecord) zero() cluster.ResourceList {
	used := make(cluster.ResourceList, len(rec.tracked))
	for _, name := range rec.tracked {
		used[name] = 0
	}
	return used
}

// charge adds (sign 1) or takes away (-1) a pod's usage, when the quota
// matches the pod.
func (rec *quotaRecord) charge(p *cluster.Pod, terminal bool, sign int64) {
	rec.chargeTo(rec.used, p, terminal, sign)
}

// chargeTo is charge into another usage (a recount).
func (rec *quotaRecord) chargeTo(used cluster.ResourceList, p *cluster.Pod, terminal bool, sign int64) {
	if !rec.quota.Matches(p) {
		return
	}
	usage := cluster.QuotaUsage(p, terminal)
	for _, name := range rec.tracked {
		used[name] += sign * usage[name]
	}
}

// All yields the status of every quota, by namespace and name: copies, the
// caller's to change.
func (qs *Quotas) All() iter.Seq[QuotaStatus] {
	return func(yield func(QuotaStatus) bool) {
		for _, ns := range slices.Sorted(maps.Keys(qs.byNamespace)) {
			for _, rec := range qs.byNamespace[ns] {
				if !yield(QuotaStatus{Quota: cloneQuota(rec.quota), Used: rec.used.Clone()}) {
					return
				}
			}
		}
	}
}

// Check is ResourceQuota admission for a pod about to be created, as
// admitted (its priority class resolved, its resources defaulted): every
// quota of its namespace that matches it must find each container setting
// the cpu and memory it tracks, then have room for the pod's usage. It
// returns the refusal for the first quota, in name order, that fails, or
// nil.
func (qs *Quotas) Check(p *cluster.Pod) *RejectedError {
	var matching []*quotaRecord
	for _, rec := range qs.byNamespace[namespaceOf(p)] {
		if !rec.quota.Matches(p) {
			continue
		}
		if missing := cluster.QuotaMissing(p, rec.tracked); missing != "" {
			return reject(p, "pods %q is forbidden: failed quota: %s: must specify %s", p.Name, rec.quota.Name, missing)
		}
		matching = append(matching, rec)
	}
	if len(matching) == 0 {
		return nil
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
			return reject(p, "pods %q is forbidden: exceeded quota: %s, requested: %s, used: %s, limited: %s",
				p.Name, rec.quota.Name, requested, used, limited)
		}
	}
	return nil
}

// Charge counts a pod just created (as admitted) against the quotas of its
// namespace that match it.
func (qs *Quotas) Charge(p *cluster.Pod) {
	qs.charge(p, false, 1)
}

// Ended frees what a pod that ends used of its quotas: all of it when it
// is deleted, all but count/pods when it succeeded (a terminal pod is
// stored still, and counts as a stored object only). wasTerminal says
// whether it had succeeded before (a succeeded pod deleted).
func (qs *Quotas) Ended(p *cluster.Pod, wasTerminal, succeeded bool) {
	if len(qs.byNamespace) == 0 {
		return
	}
	qs.charge(p, wasTerminal, -1)
	if succeeded {
		qs.charge(p, true, 1)
	}
}

// charge adds a pod's usage to its namespace's quotas (sign 1), or takes
// it away (-1); terminal counts count/pods only.
func (qs *Quotas) charge(p *cluster.Pod, terminal bool, sign int64) {
	if len(qs.byNamespace) == 0 {
		return
	}
	for _, rec := range qs.byNamespace[namespaceOf(p)] {
		rec.charge(p, terminal, sign)
	}
}

// Recount counts every quota's usage afresh from pods and reports the
// first quota, by namespace and name, whose usage differs from the one
// kept: the invariant a scheduler checks.
func (qs *Quotas) Recount(pods StoredPods) error {
	if len(qs.byNamespace) == 0 {
		return nil
	}
	fresh := make(map[*quotaRecord]cluster.ResourceList)
	for _, list := range qs.byNamespace {
		for _, rec := range list {
			fresh[rec] = rec.zero()
		}
	}
	for p, terminal := range orNone(pods) {
		for _, rec := range qs.byNamespace[namespaceOf(p)] {
			rec.chargeTo(fresh[rec], p, terminal, 1)
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(qs.byNamespace)) {
		for _, rec := range qs.byNamespace[ns] {
			if !maps.Equal(fresh[rec], rec.used) {
				return fmt.Errorf("resource quota %s counts %v used, the pods use %v", rec.quota.Key(), rec.used, fresh[rec])
			}
		}
	}
	return nil
}

// Clone returns Quotas that go on on their own: the quotas are shared
// (never changed once set), their usage is copied.
func (qs *Quotas) Clone() Quotas {
	if qs.byNamespace == nil {
		return Quotas{}
	}
	out := make(map[string][]*quotaRecord, len(qs.byNamespace))
	for ns, list := range qs.byNamespace {
		cp := make([]*quotaRecord, len(list))
		for i, rec := range list {
			c := *rec
			c.used = rec.used.Clone()
			cp[i] = &c
		}
		out[ns] = cp
	}
	return Quotas{byNamespace: out}
}
