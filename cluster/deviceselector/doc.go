// Package deviceselector compiles and evaluates the CEL device selectors
// of Dynamic Resource Allocation (resource.k8s.io/v1: DeviceClass.Selectors
// and ExactDeviceRequest.Selectors) as Kubernetes v1.37 does, with
// cel.dev/cel-go and no Kubernetes module.
//
// # The device variable
//
// A selector sees one device as the variable device (CEL type
// kubernetes.DRADevice):
//
//	device.driver                    string: the driver of the device's slice
//	device.attributes[domain][id]    int, bool, string or semver
//	device.capacity[domain][id]      quantity
//	device.allowMultipleAllocations  bool
//
// A qualified name "domain/id" splits at its first '/'; a name without a
// domain is in the driver's domain, so a device of driver gpu.example.com
// with attribute "model" is seen as device.attributes["gpu.example.com"].model,
// as is one with "gpu.example.com/model" (if a device has both, the one
// written with its domain wins). Looking up a domain the device does not
// have gives an empty map, as in Kubernetes ("d" in device.attributes
// tells whether it has one); a missing id is the runtime error "no such
// key: <id>". Attribute values are typed at run time only, so a selector
// may end in a bool attribute: a selector's type must be bool or unknown
// (dyn), or it does not compile ("must evaluate to bool or the unknown
// type, not int"). Before it evaluates, Matches refuses a device with an
// attribute of no value or a version that does not parse, naming the
// first in name order, as Kubernetes refuses it (whatever the selector).
//
// # The environment
//
// It is Kubernetes' base CEL environment
// (k8s.io/apiserver/pkg/cel/environment) at v1.37's compatibility version
// with what k8s.io/dynamic-resource-allocation/cel adds:
//
//   - the standard library, with homogeneous aggregate literals, UTC as
//     the default time zone, cross-type numeric comparisons (1 < 1.5),
//     optional types (a.?b, orValue) and the literal validators
//     (duration, timestamp, regex, homogeneous aggregates);
//   - Kubernetes' quantity library: quantity, isQuantity, sign (a global
//     function, as Kubernetes declares it: sign(q)), isLessThan,
//     isGreaterThan, compareTo, add, sub (a quantity or an int), asInteger,
//     isInteger, asApproximateFloat; == compares values ("200M" ==
//     "0.2G"). Strings parse as resource.ParseQuantity parses them, with
//     its errors; values are exact, rounded up to a billionth and, with a
//     binary suffix, capped at 2^63-1 as there;
//   - Kubernetes' semver library at version 1: semver(s), semver(s,
//     normalize), isSemver(s), isSemver(s, normalize), major, minor,
//     patch, compareTo, isLessThan, isGreaterThan; strings parse as
//     github.com/blang/semver/v4 parses them, with its errors;
//   - cel-go's extensions: strings (version 2), sets, lists (version 3),
//     two-variable comprehensions, and bindings (cel.bind), which the
//     device environment adds;
//   - includes (target.includes(arg): arg in a list, or equal to a
//     scalar), which the scheduler's stored-expression environment has
//     whatever the DRAListTypeAttributes gate says.
//
// Not here, because a device selector has no use for them: Kubernetes'
// URL, regex (find, findAll), lists (isSorted, sum, min, max, indexOf,
// lastIndexOf), IP, CIDR, format and authorizer libraries, and list-typed
// attributes (alpha); nor quantity's mul, div and divInt, which recent
// Kubernetes sources have. A selector using them does not compile
// ("undeclared reference" or "found no matching overload").
//
// # Errors and limits
//
// Compile refuses an expression longer than MaxExpressionLength (10 KiB).
// Its error is a *CompileError: Error is the field error the API server
// reports for spec.selectors[i].cel.expression (`Invalid value: "<expr>":
// compilation failed: ERROR: <input>:1:5: ...`, with cel-go's position and
// excerpt), Detail is the part the scheduler quotes ("class %s: selector
// #%d: CEL compile error: %v"). Matches' error is a *RuntimeError,
// worded as the scheduler words it after "CEL runtime error: ", with
// Kubernetes' hint after a missing key.
//
// Cost, as the API server counts it (cost.go): before it admits an
// expression, Compile estimates its worst-case cost with cel-go's
// estimator, pricing the string functions (replace, split, lowerAscii,
// substring, indexOf, ...) by the sizes of the strings they read and
// build rather than at 1 a call, and bounding what a device holds by the
// API's limits: device.driver 63 characters, a string or version
// attribute 64, 32 attributes and capacities. An expression whose
// estimate is over CostLimit (1,000,000) is refused as the API server
// refuses it (`Forbidden: too complex, exceeds cost limit`, CompileError's
// TooCostly): eight nested replace calls, each multiplying a string's
// length, never run. A function the estimate does not price by size whose
// result is a string or a list (join, format) has a result of unknown
// size, so that any use of it that is priced by size is refused; this is
// stricter than Kubernetes for such rare selectors. An evaluation is
// charged the same way, by the sizes it meets, and stops at CostLimit
// ("operation cancelled: actual cost limit exceeded").
//
// # Speed
//
// A selector is compiled once and evaluated many times. Evaluation builds
// no map: device is a view over the cluster.Device, and looking up
// device.attributes[domain][id] looks "domain/id" (and "id", in the
// driver's domain) up in the device's own map. Nothing is cached per
// device, so a changed device is seen as it is. Constant quantity(...)
// and semver(...) calls are evaluated when the program is planned (their
// cost is not charged). On the typical GPU selector
// (BenchmarkMatches) an evaluation takes 1.3 to 2 µs (two shared cores)
// and 9 allocations (424 B),
// most of them cel-go's cost tracking, which the cost limit needs.
//
// # Determinism and concurrency
//
// Compilation and evaluation are deterministic: iterating over
// device.attributes, device.capacity or a domain's map goes in sorted key
// order, not Go's map order, and an error names the first bad attribute
// in name order. A Selector is immutable and safe for concurrent use; a
// Cache is for one goroutine. The environment is built once, on first use.
package deviceselector
