// Package schema is the scenario file as Go structures, and the readers
// that fill them. It is internal: users program against package scenario,
// whose builder turns a File into a Scenario; the Kubernetes importer
// (scenario/kube) writes Files too, so that one builder checks both.
//
// A File mirrors the file entry by entry (docs/scenario-format.md): the
// yaml tags are the file's names, each entry remembers its line, and an
// entry made from a Kubernetes object carries its Origin, which turns the
// builder's field paths into the object's own. Nothing here checks what
// the values mean, beyond names and resource names (names.go); that is
// the builder's work.
//
// Reading is strict. ParseDocuments reads YAML, or JSON into the same node
// tree with lines; a Decoder fills a structure from the tree, refusing
// unknown and repeated fields and naming the path of every problem. Field
// types say how a field is treated: Skipped is accepted and ignored,
// Unmodelled is reported through Decoder.Warn, OpenFields lets a struct
// take fields it does not name. DecodeJSONDirect is a shortcut for large
// JSON scenarios: it decodes straight from the bytes, and gives up on
// anything it is not sure to read as the tree would, so that the caller
// falls back to the tree; the two agree on everything the shortcut takes.
//
// Limits: an Expansion counts what a file's YAML aliases repeat, so that
// a few kilobytes of nested anchors cannot stand for billions of values,
// and a Tally counts the nodes and pods of all inputs before anything is
// expanded.
//
// Determinism: decoding depends on the bytes alone; errors, warnings and
// the values decoded are the same on every run. Concurrency: nothing here
// is shared between loads. A Decoder, an Expansion or a Tally belongs to
// one load at a time; a decoded File is read-only once the builder has it.
package schema
