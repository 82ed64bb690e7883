package scenario

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim"
	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// Arrival processes and run-time distributions of workload templates.
// Times drawn at random are rounded to whole seconds (run times to at
// least one second, since a run time of 0 means "runs until deleted"), so
// that results read well; given times are kept exactly.

// maxSigma bounds a log-normal's sigma: beyond it the draws are
// meaningless for run times.
const maxSigma = 5

// maxDrawSeconds caps a drawn time (about 31 years), far beyond any
// simulation, so that a heavy tail cannot overflow a time.Duration.
const maxDrawSeconds = 1e9

// arrival is a checked arrival process.
type arrival struct {
	start time.Duration
	every time.Duration
	rate  float64 // arrivals per second; Poisson when > 0
	at    []time.Duration
}

// arrival decodes and checks a workload's arrival process; absent, every
// replica arrives at 0.
func (b *builder) arrival(n *yaml.Node, where string) (*arrival, error) {
	var s schema.Arrival
	if n == nil {
		return &arrival{}, nil
	}
	if err := schema.DecodeField(n, &s, where); err != nil {
		return nil, b.decodeFail(err)
	}
	a := &arrival{}
	var err error
	if a.start, err = parseTime(s.Start); err != nil {
		return nil, b.fail(s.Line, where+".start", err)
	}
	given := 0
	if s.Every != "" {
		given++
		if a.every, err = parseTime(s.Every); err != nil {
			return nil, b.fail(s.Line, where+".every", err)
		}
	}
	if s.Rate != "" {
		given++
		if a.rate, err = parseRate(s.Rate); err != nil {
			return nil, b.fail(s.Line, where+".rate", err)
		}
	}
	if s.At != nil {
		given++
		if a.at, err = b.arrivalList(&s, where); err != nil {
			return nil, err
		}
	}
	if given != 1 {
		return nil, b.failf(s.Line, where, "needs exactly one of every (a fixed interval), rate (a Poisson process) and at (a list of times); has %d", given)
	}
	return a, nil
}

// arrivalList reads a list of arrival times, which start shifts.
func (b *builder) arrivalList(s *schema.Arrival, where string) ([]time.Duration, error) {
	if len(s.At) == 0 {
		return nil, b.failf(s.Line, where+".at", "is empty")
	}
	out := make([]time.Duration, len(s.At))
	for i, text := range s.At {
		t, err := parseTime(text)
		if err != nil {
			return nil, b.fail(s.Line, fmt.Sprintf("%s.at[%d]", where, i), err)
		}
		out[i] = t
	}
	return out, nil
}

// parseRate reads "N/unit": a positive number of arrivals per unit, where
// the unit is s, m, h, d or a duration ("3/10m").
func parseRate(text string) (float64, error) {
	num, per, ok := strings.Cut(text, "/")
	bad := fmt.Errorf("%q is not a rate like 12/h, 0.5/m or 3/10m", text)
	if !ok {
		return 0, bad
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, bad
	}
	unit, err := parseUnit(per)
	if err != nil {
		return 0, bad
	}
	rate := n / unit.Seconds()
	if !(rate > 0) || math.IsInf(rate, 0) {
		return 0, bad
	}
	return rate, nil
}

// parseUnit reads a rate's unit: s, m, h, d (24h) or a positive duration.
func parseUnit(s string) (time.Duration, error) {
	switch s {
	case "s", "m", "h":
		s = "1" + s
	case "d":
		return 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("not a unit")
	}
	return d, nil
}

// errPastEnd is returned when arrivals go past the largest simulated time.
var errPastEnd = fmt.Errorf("the arrivals go past the largest simulated time, %v (a hundred years)", gangsim.MaxSimulatedTime)

// times returns n arrival times.
func (a *arrival) times(n int, rng *rand.Rand) ([]time.Duration, error) {
	out := make([]time.Duration, n)
	switch {
	case a.at != nil:
		for i, t := range a.at {
			out[i] = a.start + t
			if out[i] < t {
				return nil, errPastEnd
			}
		}
	case a.rate > 0:
		var clock float64 // seconds after start
		for i := range out {
			clock += rng.ExpFloat64() / a.rate
			if clock > maxDrawSeconds {
				return nil, errPastEnd
			}
			out[i] = a.start + time.Duration(math.Round(clock))*time.Second
		}
	default:
		if n > 1 && a.every > 0 && a.every > (math.MaxInt64-a.start)/time.Duration(n-1) {
			return nil, errPastEnd
		}
		for i := range out {
			out[i] = a.start + time.Duration(i)*a.every
		}
	}
	if n > 0 && slices.Max(out) > gangsim.MaxSimulatedTime {
		return nil, errPastEnd
	}
	return out, nil
}

// runTimeDist is a checked run-time distribution; the zero value means no run
// time (pods run until deleted or evicted).
type runTimeDist struct {
	fixed  time.Duration
	mean   float64 // exponential, seconds
	median float64 // log-normal, seconds
	sigma  float64
	max    time.Duration // 0: no cap
}

// decodeRunTime decodes a workload's run time: a plain time (fixed) or a
// mapping.
func (b *builder) decodeRunTime(n *yaml.Node, where string) (runTimeDist, error) {
	if n == nil {
		return runTimeDist{}, nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		d, err := parseTime(n.Value)
		if err != nil {
			return runTimeDist{}, b.fail(n.Line, where, err)
		}
		return runTimeDist{fixed: d}, nil
	}
	var s schema.RunTime
	if err := schema.DecodeField(n, &s, where); err != nil {
		return runTimeDist{}, b.decodeFail(err)
	}
	return b.checkRunTime(&s, where)
}

func (b *builder) checkRunTime(s *schema.RunTime, where string) (runTimeDist, error) {
	var rt runTimeDist
	var err error
	if rt.max, err = parseTime(s.Max); err != nil {
		return rt, b.fail(s.Line, where+".max", err)
	}
	given := 0
	if s.Fixed != "" {
		given++
		if rt.fixed, err = parseTime(s.Fixed); err != nil {
			return rt, b.fail(s.Line, where+".fixed", err)
		}
	}
	if s.Exponential != "" {
		given++
		if rt.mean, err = positiveSeconds(s.Exponential); err != nil {
			return rt, b.fail(s.Line, where+".exponential", err)
		}
	}
	if ln := s.LogNormal; ln != nil {
		given++
		if rt.median, err = positiveSeconds(ln.Median); err != nil {
			return rt, b.fail(s.Line, where+".logNormal.median", err)
		}
		if !(ln.Sigma > 0 && ln.Sigma <= maxSigma) {
			return rt, b.failf(s.Line, where+".logNormal.sigma", "%v is not in (0, %d]", ln.Sigma, maxSigma)
		}
		rt.sigma = ln.Sigma
	}
	if given != 1 {
		return rt, b.failf(s.Line, where, "needs exactly one of fixed, exponential (the mean) and logNormal; has %d", given)
	}
	return rt, nil
}

// positiveSeconds reads a positive duration as seconds.
func positiveSeconds(s string) (float64, error) {
	d, err := parseTime(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not positive", s)
	}
	return d.Seconds(), nil
}

// draw returns one run time.
func (rt runTimeDist) draw(rng *rand.Rand) time.Duration {
	var secs float64
	switch {
	case rt.mean > 0:
		secs = rng.ExpFloat64() * rt.mean
	case rt.median > 0:
		secs = rt.median * math.Exp(rt.sigma*rng.NormFloat64())
	default:
		return rt.fixed
	}
	d := time.Duration(max(1, math.Round(min(secs, maxDrawSeconds)))) * time.Second
	if rt.max > 0 {
		d = min(d, rt.max)
	}
	return d
}

// String writes the distribution as a file gives it, shortly: "4m",
// "exponential(4m)", "logNormal(4m, 0.5)", with ", max 10m" for a cap.
func (rt runTimeDist) String() string {
	var s string
	switch {
	case rt.mean > 0:
		s = fmt.Sprintf("exponential(%v", secondsDuration(rt.mean))
	case rt.median > 0:
		s = fmt.Sprintf("logNormal(%v, %v", secondsDuration(rt.median), rt.sigma)
	default:
		return rt.fixed.String()
	}
	if rt.max > 0 {
		s += fmt.Sprintf(", max %v", rt.max)
	}
	return s + ")"
}

// secondsDuration turns seconds back into the duration they were read
// from.
func secondsDuration(secs float64) time.Duration {
	return time.Duration(math.Round(secs * float64(time.Second)))
}
