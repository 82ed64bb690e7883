package deviceselector

import "container/list"

// DefaultCacheSize is the number of selectors a Cache keeps unless told
// otherwise. The scheduler keeps 10: in a cluster a handful of device
// classes and claims are live at a time, and a miss costs a compilation
// now and then. A simulator replays whole workloads, with many classes
// and claims, through one process, and a miss costs a compilation (some
// 250 µs and 68 KB, BenchmarkCompile) on every allocation attempt; 1024
// compiled selectors hold every selector of any workload we run, for a
// few tens of MiB at most.
const DefaultCacheSize = 1024

// Cache is a least-recently-used cache of compiled selectors, keyed by
// expression. Failed compilations are not cached. What it returns does
// not depend on its size or history: compilation is deterministic, only
// the time taken differs. A Cache is for one goroutine; the Selectors it
// returns may be shared.
type Cache struct {
	size    int
	order   *list.List // front: most recently used; values are *Selector
	entries map[string]*list.Element
}

// NewCache returns a cache of size selectors, or of DefaultCacheSize for
// size <= 0.
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{size: size, order: list.New(), entries: make(map[string]*list.Element)}
}

// Get returns the compiled selector for expr, compiling it on a miss.
// The error, if any, is Compile's.
func (c *Cache) Get(expr string) (*Selector, error) {
	if e, ok := c.entries[expr]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*Selector), nil
	}
	s, err := Compile(expr)
	if err != nil {
		return nil, err
	}
	c.entries[expr] = c.order.PushFront(s)
	if c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*Selector).expr)
	}
	return s, nil
}

// Len returns the number of selectors cached.
func (c *Cache) Len() int { return c.order.Len() }

// Size returns the most selectors the cache keeps.
func (c *Cache) Size() int { return c.size }
