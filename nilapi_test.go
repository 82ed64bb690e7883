package gangsim

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/gangsim/gangsim/gangsimtest"
)

// TestNilAndZeroSchedulerDoNotPanic calls every exported method of
// *Scheduler with zero arguments on a nil Scheduler and on a zero-value
// one: each returns ErrNotInitialized, a zero value or nothing, never a
// panic; an iterator yields nothing.
func TestNilAndZeroSchedulerDoNotPanic(t *testing.T) {
	for _, s := range []*Scheduler{nil, {}} {
		v := reflect.ValueOf(s)
		typ := v.Type()
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			t.Run(m.Name, func(t *testing.T) {
				args := []reflect.Value{v}
				for j := 1; j < m.Type.NumIn(); j++ {
					args = append(args, reflect.Zero(m.Type.In(j)))
				}
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s on %v Scheduler panics: %v", m.Name, s == nil, r)
					}
				}()
				var out []reflect.Value
				if m.Type.IsVariadic() {
					out = m.Func.CallSlice(args)
				} else {
					out = m.Func.Call(args)
				}
				if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeFor[error]() {
					err, _ := out[n-1].Interface().(error)
					if !errors.Is(err, ErrNotInitialized) {
						t.Errorf("%s on an unusable Scheduler returns %v, not ErrNotInitialized", m.Name, err)
					}
				}
				for _, o := range out {
					if o.Kind() == reflect.Func && o.Type().NumIn() == 1 && o.Type().In(0).Kind() == reflect.Func {
						yieldType := o.Type().In(0)
						yield := reflect.MakeFunc(yieldType, func([]reflect.Value) []reflect.Value {
							t.Errorf("%s's iterator yields on an unusable Scheduler", m.Name)
							return []reflect.Value{reflect.ValueOf(false)}
						})
						o.Call([]reflect.Value{yield})
					}
				}
			})
		}
	}
}

// Options that are nil, or hold nothing, are none; a start time outside
// what RunUntil takes is refused.
func TestNilOptionsAndStartTimeBounds(t *testing.T) {
	s, err := New(Config{}, nil, WithObserver(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(gangsimtest.MakePod("p").Obj(), 0); err != nil { // emits events: a nil observer would be called
		t.Fatal(err)
	}
	if _, err := s.Fork(nil); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{-time.Second, MaxSimulatedTime + 1} {
		if _, err := New(Config{}, WithStartTime(at)); !errors.Is(err, ErrConfig) {
			t.Errorf("WithStartTime(%v): %v, want ErrConfig", at, err)
		}
	}
	if _, err := New(Config{}, WithStartTime(MaxSimulatedTime)); err != nil {
		t.Errorf("WithStartTime(MaxSimulatedTime): %v", err)
	}
}
