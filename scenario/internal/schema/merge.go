package schema

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ExpandMerges resolves the YAML merge keys (`<<: *defaults`, or a list
// of aliases and mappings) of a parsed document in place, as kubectl's
// reader does: each mapping with a merge key takes, where the merge key
// stood, the entries of the merged mappings whose keys it does not give
// itself; of several merged mappings, an earlier one's entry wins. The
// merged values stay aliases of the values they repeat (an alias node
// pointing at them), so the decoders count what they repeat against the
// file's alias limit (Expansion) as for any alias. A quoted "<<" is an
// ordinary key. It returns an error, naming the line, for a merge value
// that is no mapping, for a mapping that merges itself, and for merges
// that would add more entries than the alias limit allows for the
// document (aliasFactor times its own values, plus aliasAllowance): a
// few kilobytes of merges of merges must not become gigabytes of entries.
func ExpandMerges(doc *yaml.Node) error {
	m := merger{done: map[*yaml.Node]bool{}, active: map[*yaml.Node]bool{},
		left: aliasFactor*countNodes(doc) + aliasAllowance}
	return m.walk(doc)
}

type merger struct {
	done, active map[*yaml.Node]bool
	left         int // entries merges may still add
}

// walk expands the merges of n and of everything below it, each node once
// (an anchor's value is reached through every alias of it).
func (m *merger) walk(n *yaml.Node) error {
	if n == nil || m.done[n] {
		return nil
	}
	if m.active[n] {
		return nil // an alias cycle: the decoders say where; a merge of one is merge's to refuse
	}
	m.active[n] = true
	defer delete(m.active, n)
	if n.Kind == yaml.AliasNode {
		if err := m.walk(n.Alias); err != nil {
			return err
		}
	} else {
		for _, child := range n.Content {
			if err := m.walk(child); err != nil {
				return err
			}
		}
		if n.Kind == yaml.MappingNode {
			if err := m.merge(n); err != nil {
				return err
			}
		}
	}
	m.done[n] = true
	return nil
}

func isMergeKey(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Tag == "!!merge" }

// merge replaces each merge entry of the mapping n by the entries it
// brings (its sources expanded already: walk visits children first).
func (m *merger) merge(n *yaml.Node) error {
	has := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		has = has || isMergeKey(n.Content[i])
	}
	if !has {
		return nil
	}
	given := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !isMergeKey(k) {
			given[Unalias(k).Value] = true
		}
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !isMergeKey(k) {
			out = append(out, k, v)
			continue
		}
		sources, err := mergeSources(v)
		if err != nil {
			return err
		}
		for _, src := range sources {
			if m.active[src] {
				return &DecodeError{Path: "<<", Line: k.Line, Err: errors.New("a mapping merges itself or a mapping holding it (an alias cycle)")}
			}
			for j := 0; j+1 < len(src.Content); j += 2 {
				sk, sv := src.Content[j], src.Content[j+1]
				key := Unalias(sk).Value
				if given[key] {
					continue
				}
				given[key] = true
				if m.left--; m.left < 0 {
					return &DecodeError{Path: "<<", Line: k.Line, Err: errors.New("merge keys repeat more entries than the file's alias limit allows")}
				}
				out = append(out, sk, &yaml.Node{Kind: yaml.AliasNode, Alias: sv, Value: "<<", Line: k.Line, Column: k.Column})
			}
		}
	}
	n.Content = out
	return nil
}

// mergeSources are the mappings a merge value names, in order.
func mergeSources(v *yaml.Node) ([]*yaml.Node, error) {
	if t := Unalias(v); t != nil && t.Kind == yaml.MappingNode {
		return []*yaml.Node{t}, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, &DecodeError{Path: "<<", Line: v.Line, Err: fmt.Errorf("a merge key takes a mapping or a list of mappings, not %s", KindName(Unalias(v)))}
	}
	var out []*yaml.Node
	for _, item := range v.Content {
		t := Unalias(item)
		if t == nil || t.Kind != yaml.MappingNode {
			return nil, &DecodeError{Path: "<<", Line: item.Line, Err: fmt.Errorf("a merge key takes a mapping or a list of mappings, not a list holding %s", KindName(t))}
		}
		out = append(out, t)
	}
	return out, nil
}

// Unalias returns the node an alias stands for (n itself when it is no
// alias).
func Unalias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
