package scenario

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/cluster"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// The API server's admission of pods into namespaces: LimitRanges fill
// and bound the containers' resources, ResourceQuotas refuse pods past
// their limits. The builder reads and checks them; the Scheduler applies
// them to every pod created (gangsim.SetLimitRange, SetResourceQuota), and
// a refused pod is a result, not an error (phase Rejected).

// admission reads a file's limitRanges and resourceQuotas.
func (b *builder) admission(f *schema.File) error {
	for i := range f.LimitRanges {
		if err := b.limitRange(&f.LimitRanges[i], i); err != nil {
			return err
		}
	}
	for i := range f.ResourceQuotas {
		if err := b.resourceQuota(&f.ResourceQuotas[i], i); err != nil {
			return err
		}
	}
	return nil
}

// defineOnce registers an object's key, or fails naming where it was
// defined first.
func (b *builder) defineOnce(kind, key string, line int, where string) error {
	if b.admissionKeys == nil {
		b.admissionKeys = map[[2]string]string{}
	}
	if first, dup := b.admissionKeys[[2]string{kind, key}]; dup {
		return b.failf(line, where+".name", "%s %s is defined twice: first in %s", kind, cluster.PodKey(key).Display(), first)
	}
	b.admissionKeys[[2]string{kind, key}] = fmt.Sprintf("%s, line %d (%s)", b.file, line, where)
	return nil
}

func (b *builder) limitRange(s *schema.LimitRange, i int) error {
	where := b.entry(s.Origin, "limitRanges", i, s.Name)
	if err := b.checkNames(s.Line, where, s.Name, s.Namespace); err != nil {
		return err
	}
	lr := cluster.LimitRange{Namespace: orDefault(s.Namespace, cluster.DefaultNamespace), Name: s.Name}
	if err := b.defineOnce("limit range", lr.Key(), s.Line, where); err != nil {
		return err
	}
	for j, it := range s.Limits {
		at := fmt.Sprintf("%s.limits[%d]", where, j)
		item := cluster.LimitRangeItem{Type: it.Type}
		use := schema.ResourcesOfContainer
		if it.Type == cluster.LimitTypePersistentVolumeClaim {
			use = -1 // storage
			b.ws.Add(b.kindOf(s.Origin, "LimitRange"), b.fieldOf(s.Origin, "limitRanges", "limits[].type")+" PersistentVolumeClaim",
				"not modelled: the simulator has no volumes; the item is kept and never applied", b.file+": "+where)
		}
		for _, l := range []struct {
			field string
			in    map[string]string
			out   *cluster.ResourceList
			ratio bool
		}{{"max", it.Max, &item.Max, false}, {"min", it.Min, &item.Min, false}, {"default", it.Default, &item.Default, false},
			{"defaultRequest", it.DefaultRequest, &item.DefaultRequest, false}, {"maxLimitRequestRatio", it.MaxLimitRequestRatio, &item.MaxLimitRequestRatio, true}} {
			list, err := parseLimitList(l.in, use, l.ratio)
			if err != nil {
				return b.fail(s.Line, at+"."+l.field, err)
			}
			*l.out = list
		}
		lr.Limits = append(lr.Limits, item)
	}
	if err := lr.Validate(); err != nil {
		return b.fail(s.Line, where, err)
	}
	b.sc.LimitRanges = append(b.sc.LimitRanges, lr)
	return nil
}

// parseLimitList parses one of a limit range item's lists: quantities of
// container resources (use -1: storage, of a claim), or ratios
// (thousandths).
func parseLimitList(in map[string]string, use schema.ResourceUse, ratio bool) (cluster.ResourceList, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := cluster.ResourceList{}
	for _, name := range slices.Sorted(maps.Keys(in)) {
		if use >= 0 {
			if err := schema.CheckResourceName(name, use); err != nil {
				return nil, &cluster.FieldError{Sentinel: cluster.ErrQuantity, Field: name, Detail: err.Error()}
			}
		} else if name != "storage" {
			return nil, &cluster.FieldError{Sentinel: cluster.ErrQuantity, Field: name, Detail: fmt.Sprintf("%q: a claim's limit is on storage", name)}
		}
		var v int64
		var err error
		if ratio {
			v, err = cluster.ParseQuantity(in[name], 1000)
		} else {
			v, err = cluster.ParseAmount(cluster.ResourceName(name), in[name])
		}
		if err != nil {
			return nil, cluster.Within(name, err)
		}
		out[cluster.ResourceName(name)] = v
	}
	return out, nil
}

func (b *builder) resourceQuota(s *schema.ResourceQuota, i int) error {
	where := b.entry(s.Origin, "resourceQuotas", i, s.Name)
	if err := b.checkNames(s.Line, where, s.Name, s.Namespace); err != nil {
		return err
	}
	q := cluster.ResourceQuota{Namespace: orDefault(s.Namespace, cluster.DefaultNamespace), Name: s.Name, Hard: cluster.ResourceList{}}
	if err := b.defineOnce("resource quota", q.Key(), s.Line, where); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(s.Hard)) {
		if err := schema.CheckQuotaResourceName(name); err != nil {
			return b.fail(s.Line, where+".hard."+name, err)
		}
		v, err := cluster.ParseAmount(cluster.ResourceName(name), s.Hard[name])
		if err != nil {
			return b.fail(s.Line, where+".hard."+name, err)
		}
		q.Hard[cluster.ResourceName(name)] = v
	}
	for _, sc := range s.Scopes {
		q.Scopes = append(q.Scopes, cluster.QuotaScope(sc))
	}
	if sel := s.ScopeSelector; sel != nil {
		for _, r := range sel.MatchExpressions {
			q.ScopeSelector = append(q.ScopeSelector, cluster.ScopeRequirement{Scope: cluster.QuotaScope(r.ScopeName), Operator: r.Operator, Values: r.Values})
		}
	}
	if err := q.Validate(); err != nil {
		return b.fail(s.Line, where, err)
	}
	b.warnQuota(s.Origin, &q, where)
	b.sc.ResourceQuotas = append(b.sc.ResourceQuotas, q)
	return nil
}

// warnQuota says what of a quota the simulator does not apply: limits on
// objects it has not (services, configmaps, claims...), limits Kubernetes
// does not track for pods either, and the Terminating scopes.
func (b *builder) warnQuota(src *schema.Origin, q *cluster.ResourceQuota, where string) {
	kind, object := b.kindOf(src, "ResourceQuota"), b.file+": "+where
	for _, name := range slices.Sorted(maps.Keys(q.Hard)) {
		if cluster.IsPodQuotaResource(name) {
			continue
		}
		b.ws.Add(kind, b.fieldOf(src, "resourceQuotas", "hard."+string(name)), "not modelled: it counts objects other than pods, or nothing a pod asks for; not enforced", object)
	}
	for _, r := range append(slices.Clone(q.ScopeSelector), scopesAsRequirements(q.Scopes)...) {
		if r.Scope == cluster.ScopeTerminating || r.Scope == cluster.ScopeNotTerminating {
			b.ws.Add(kind, b.fieldOf(src, "resourceQuotas", "scopes")+" "+string(r.Scope),
				"not modelled: pods' activeDeadlineSeconds is not, so every pod is NotTerminating", object)
		}
	}
}

func scopesAsRequirements(scopes []cluster.QuotaScope) []cluster.ScopeRequirement {
	out := make([]cluster.ScopeRequirement, len(scopes))
	for i, s := range scopes {
		out[i] = cluster.ScopeRequirement{Scope: s, Operator: cluster.ScopeOpExists}
	}
	return out
}

// kindOf is the kind a warning names: the object's, or "" for a scenario
// file's entry.
func (b *builder) kindOf(src *schema.Origin, kind string) string {
	if src == nil {
		return ""
	}
	return kind
}

// fieldOf is the field a warning names: under spec for an object, under
// its list for a scenario file's entry.
func (b *builder) fieldOf(src *schema.Origin, list, field string) string {
	if src == nil {
		return list + "[]." + field
	}
	return "spec." + field
}

// addAdmission gives the scheduler the scenario's LimitRanges and
// ResourceQuotas.
func (sc *Scenario) addAdmission(s *gangsim.Scheduler) error {
	for _, lr := range sc.LimitRanges {
		if err := s.SetLimitRange(lr); err != nil {
			return sc.runError(Source{Path: "limitRanges (" + lr.Name + ")"}, err)
		}
	}
	for _, q := range sc.ResourceQuotas {
		if err := s.SetResourceQuota(q); err != nil {
			return sc.runError(Source{Path: "resourceQuotas (" + q.Name + ")"}, err)
		}
	}
	return nil
}

// podLimits makes a scenario pod with limits one container: a limit
// without a request requests its limit, and the pod's requests are the
// container's.
func (b *builder) podLimits(s *schema.Pod, p *cluster.Pod, where string) error {
	if s.Resources != nil { // an imported pod, container by container
		p.Resources = s.Resources
		return nil
	}
	if len(s.Limits) == 0 {
		return nil
	}
	limits, err := parseLimitList(s.Limits, schema.ResourcesOfContainer, false)
	if err != nil {
		return b.fail(s.Line, where+".limits", err)
	}
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		if r := p.Requests.Get(name); r > limits[name] {
			return b.failf(s.Line, where+".requests."+string(name), "%s is above the limit %s", s.Requests[string(name)], s.Limits[string(name)])
		}
	}
	p.Resources = cluster.SingleContainer(s.Name, p.Requests, limits)
	p.Requests = p.Resources.Requests().Resources()
	return nil
}
