package scenario

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/gangsim/gangsim/scenario/internal/schema"
	"github.com/gangsim/gangsim/scenario/kube"
)

// File is one input held in memory: its name, which errors name, and its
// contents.
type File struct {
	Name string
	Data []byte
}

// input is one input file: a scenario file, or Kubernetes objects, which
// the importer turns into scenario entries (spec) before the build.
type input struct {
	name    string
	spec    *schema.File
	objects []*kube.Object // nil for a scenario file
}

// LoadFiles reads several files and merges them into one scenario. Each is
// a scenario file or Kubernetes objects as kubectl prints them (-o json or
// -o yaml: one object, a List, or a stream of YAML documents), detected
// from its contents; docs/kubernetes-inputs.md says what is read. A path
// may be a folder: it stands for the .yaml, .yml and .json files directly
// in it, in name order (InputFiles), as kubectl apply -f reads a folder.
// A file whose name ends in .gz is read decompressed.
// An entry of one file may name what another defines; an object defined
// twice is an error naming both files. What the inputs hold that the
// simulator does not model is listed in the scenario's Warnings. The
// scenario is named after the paths as given, joined by ", ".
func LoadFiles(paths []string, opts ...Option) (*Scenario, error) {
	limit := applyOptions(opts).limits.FileSize
	names, skipped, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	files := make([]File, 0, len(names))
	var unmaps []func()
	defer func() {
		for _, unmap := range unmaps {
			unmap() // nothing parsed points into a file's bytes (parseFiles)
		}
	}()
	for _, p := range names {
		data, unmap, err := mapLimited(p, limit)
		if err != nil {
			return nil, err
		}
		if unmap != nil {
			unmaps = append(unmaps, unmap)
		}
		files = append(files, File{Name: p, Data: data})
	}
	var ws warnings
	warnSkipped(&ws, skipped)
	return parseFiles(files, strings.Join(paths, ", "), &ws, true, opts...)
}

// ReadFile reads one input file as LoadFiles reads it: within the file
// size limit (WithLimits), a pipe read up to it, devices and sockets
// refused. A program that passes inputs on (a sweep's ConfigMaps) reads
// them with it.
func ReadFile(path string, opts ...Option) ([]byte, error) {
	return readLimited(path, applyOptions(opts).limits.FileSize)
}

// mapLimited is readLimited for LoadFiles: a regular file is mapped into
// memory (mapFile) where it can be, and unmap, when not nil, lets go of
// it; its bytes must not be read after that, nor kept. A mapped file that
// is cut short while it is parsed is an error, not a crash
// (readFileCatching).
func mapLimited(path string, limit int64) (data []byte, unmap func(), err error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 && fi.Size() <= limit {
		if f, err := os.Open(path); err == nil {
			data, unmap, ok := mapFile(f, fi.Size())
			f.Close() // the mapping holds the file
			if ok {
				if afterMap != nil {
					afterMap(path)
				}
				return data, unmap, nil
			}
		}
	}
	data, err = readLimited(path, limit) // what cannot be mapped, and why not, as a read says it
	return data, nil, err
}

// afterMap, when set (by a test), is called with a file's path once it is
// mapped.
var afterMap func(path string)

// readLimited reads a file of at most limit bytes; a larger one is an
// error before it is read. A pipe (a named one, or /dev/stdin fed by a
// pipe) is read up to the limit, holding at most twice the limit while it
// is read; a named pipe with no writer reads as empty rather than waiting
// for one. Devices and sockets are refused: /dev/zero would never end.
func readLimited(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &FieldError{File: path, Err: err}
	}
	mode := fi.Mode()
	if what := special(mode); what != "" {
		return nil, &FieldError{File: path, Err: fmt.Errorf("is %s, not a file or a pipe", what)}
	}
	flag := os.O_RDONLY
	if mode&os.ModeNamedPipe != 0 {
		flag |= syscall.O_NONBLOCK // opening does not wait for a writer
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, &FieldError{File: path, Err: err}
	}
	defer f.Close()
	if mode.IsRegular() {
		if fi.Size() > limit {
			return nil, fileTooLarge(path, fi.Size(), limit)
		}
		buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead)) // read once, not grown by copies
		if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
			return nil, &FieldError{File: path, Err: err}
		}
		return checkLimit(path, buf.Bytes(), limit)
	}
	data, err := readChunks(f, limit+1)
	if err != nil {
		return nil, &FieldError{File: path, Err: err}
	}
	if len(data) == 0 && mode&os.ModeNamedPipe != 0 {
		return nil, &FieldError{File: path, Err: errors.New("nothing to read: a pipe with no writer")}
	}
	return checkLimit(path, data, limit)
}

// special names what a file of this mode is when it is neither a regular
// file nor a pipe ("" when it is one of those).
func special(mode os.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&os.ModeDevice != 0, mode&os.ModeCharDevice != 0:
		return "a device"
	case mode&os.ModeSocket != 0:
		return "a socket"
	case mode&os.ModeIrregular != 0:
		return "a special file"
	}
	return ""
}

// readChunks reads r to its end or to max bytes, whichever comes first,
// in chunks joined once: at most twice what it returns in memory, where a
// growing buffer's copies would hold three or four times it.
func readChunks(r io.Reader, max int64) ([]byte, error) {
	const chunk = 4 << 20
	var chunks [][]byte
	var total int64
	for total < max {
		b := make([]byte, min(chunk, max-total))
		n, err := io.ReadFull(r, b)
		chunks = append(chunks, b[:n])
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

func checkLimit(path string, data []byte, limit int64) ([]byte, error) {
	if int64(len(data)) > limit {
		return nil, &FieldError{File: path, Err: fmt.Errorf("the file is more than %d bytes, the limit (%s)", limit, byteSize(limit))}
	}
	return data, nil
}

// ParseFiles is LoadFiles on contents held in memory.
func ParseFiles(files []File, opts ...Option) (*Scenario, error) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return parseFiles(files, strings.Join(names, ", "), &warnings{}, false, opts...)
}

// parseFiles parses files into the scenario name, adding to the warnings
// ws; when they are its own (read by LoadFiles), a file's bytes are let go
// once decoded, before the scenario is built from them: nothing decoded
// points into them, and a 100 MB file is then not held while a million
// pods are made.
func parseFiles(files []File, name string, ws *warnings, own bool, opts ...Option) (*Scenario, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no input file", ErrScenario)
	}
	o := applyOptions(opts)
	ins := make([]*input, 0, len(files))
	var errs schema.Errors // every file's, reported at once (Errors)
	for i, f := range files {
		in, err := readFileCatching(f, ws, o.limits)
		if !errs.Add(err) {
			break
		}
		if own {
			files[i].Data = nil
		}
		if err == nil {
			ins = append(ins, in)
		}
	}
	if err := countObjects(ins, o.limits.Objects); err != nil {
		return nil, err
	}
	// the objects of the files that were read are imported even when
	// another file was not: their mistakes are reported with its
	t := schema.NewTally(o.limits.Nodes, o.limits.Pods, o.limits.Memory)
	if !errs.Stopped {
		if err := countEntries(t, ins); err != nil {
			return nil, err
		}
	}
	if hasObjects(ins) && !errs.Stopped {
		addAll(&errs, importObjects(ins, &o, ws, t))
	}
	if err := loadErrors(&errs); err != nil {
		return nil, err
	}
	if err := checkDefinedOnce(ins); err != nil {
		return nil, err
	}
	b := newBuilder(name, opts)
	b.ws, b.tally = ws, t
	if err := b.build(ins); err != nil {
		return nil, err
	}
	if err := b.extendedResourceToleration(ins); err != nil {
		return nil, err
	}
	b.sc.Warnings = ws.list()
	b.sc.Skipped = ws.skippedList()
	return b.sc, nil
}

// readFileCatching is readFile on bytes that may be a mapped file's
// (mapLimited): a file cut short while it is read takes the pages past
// its new end away, and touching them, a fault, is this file's error.
func readFileCatching(f File, ws *warnings, lim *Limits) (in *input, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if schema.CaughtFault(recover()) {
			in, err = nil, &FieldError{File: f.Name, Err: schema.ErrFileChanged}
		}
	}()
	return readFile(f, ws, lim)
}

// readFile reads one input file held in memory: within the size limit,
// decompressed when its name ends in .gz, parsed.
func readFile(f File, ws *warnings, lim *Limits) (*input, error) {
	if size := int64(len(f.Data)); size > lim.FileSize {
		return nil, fileTooLarge(f.Name, size, lim.FileSize)
	}
	data, err := gunzipped(f.Name, f.Data, lim.FileSize)
	if err != nil {
		return nil, err
	}
	return readInput(f.Name, data, ws, lim)
}

// importObjects turns the Kubernetes objects of every input into entries
// of its scenario file (kube.Import), with the user's plugins known to a
// KubeSchedulerConfiguration.
func importObjects(ins []*input, o *options, ws *warnings, t *schema.Tally) error {
	kins := make([]*kube.Input, 0, len(ins))
	for _, in := range ins {
		kins = append(kins, &kube.Input{File: in.spec, Objects: in.objects})
	}
	var opts []kube.ImportOption
	if o.skipUnknown {
		opts = append(opts, kube.SkipUnknownPlugins())
	}
	return kube.Import(kins, allPlugins(o.registry), ws, t, opts...) // loadErrors makes FieldErrors of its errors
}

// kubeError reports an error of the importer as a FieldError, with the
// same file, line, path and cause.
func kubeError(err error) error {
	if ke, ok := err.(*kube.Error); ok {
		return &FieldError{File: ke.File, Line: ke.Line, Path: ke.Path, Err: ke.Err}
	}
	return err
}

// hasObjects reports whether some input holds Kubernetes objects.
func hasObjects(ins []*input) bool {
	for _, in := range ins {
		if len(in.objects) > 0 {
			return true
		}
	}
	return false
}

// readInput parses one file and tells a scenario from Kubernetes objects:
// a document with apiVersion or kind at its top is an object. A file holds
// one or the other, and a scenario is one document.
func readInput(name string, data []byte, ws *warnings, lim *Limits) (*input, error) {
	if schema.LooksLikeJSON(data) {
		if in := (&input{name: name, spec: &schema.File{}}); schema.DecodeJSONDirect(data, in.spec) {
			return in, nil
		}
	}
	var docs []*yaml.Node
	isJSON := false
	switch {
	case readListsByItem && schema.LooksLikeJSON(data):
		in, doc := readJSONKubeList(name, data)
		if in != nil {
			return in, nil
		}
		if doc != nil {
			docs, isJSON = []*yaml.Node{doc}, true
		}
	case readListsByItem:
		if in, _ := readKubeList(name, data, schema.ParseYAMLItems); in != nil {
			return in, nil
		}
	}
	if readListsByItem && docs == nil && !schema.LooksLikeJSON(data) && bytes.IndexByte(data, '*') < 0 {
		return readStream(name, data, ws, lim.Objects)
	}
	if docs == nil {
		var err error
		if docs, isJSON, err = parseDocuments(name, data); err != nil {
			return nil, err
		}
	}
	var exp *schema.Expansion // JSON has no aliases
	if !isJSON {
		exp = schema.NewExpansion(docs, lim.AliasedValues)
	}
	in := &input{name: name, spec: &schema.File{}}
	var scenarios []*yaml.Node
	for _, doc := range docs {
		if !kube.IsDocument(doc) {
			scenarios = append(scenarios, doc)
			continue
		}
		objs, err := kube.Objects(name, doc, exp)
		if err != nil {
			return nil, kubeError(err)
		}
		in.objects = append(in.objects, objs...)
	}
	return in.scenarioOrObjects(scenarios, ws, exp)
}

// readStream is readInput for a YAML stream without aliases: each
// document is read into objects as soon as it is parsed and its tree
// dropped, so that memory follows the objects, not the trees of every
// document at once (a file of a million one-line Namespaces held 2.7 GB
// of trees). Without aliases there is nothing to expand, so no
// Expansion. As with the whole stream parsed first, a document that does
// not parse is reported before any object's error.
func readStream(name string, data []byte, ws *warnings, maxObjects int) (*input, error) {
	in := &input{name: name, spec: &schema.File{}}
	var scenarios []*yaml.Node
	var objErr error
	d := &schema.Decoder{} // one cache of struct fields for every document
	err := schema.EachYAMLDocument(data, func(doc *yaml.Node) error {
		switch {
		case !kube.IsDocument(doc):
			scenarios = append(scenarios, doc)
		case objErr == nil:
			objs, err := kube.ReadDocument(name, doc, d)
			if err != nil {
				objErr, in.objects = kubeError(err), nil
				return nil
			}
			if in.objects = append(in.objects, objs...); len(in.objects) > maxObjects {
				return tooManyObjects(name, maxObjects) // read no further
			}
		}
		return nil
	})
	var fe *FieldError
	if errors.As(err, &fe) {
		return nil, err
	}
	if err != nil {
		return nil, documentsError(name, err)
	}
	if objErr != nil {
		return nil, objErr
	}
	return in.scenarioOrObjects(scenarios, ws, nil)
}

// scenarioOrObjects ends the reading of an input: a file holds a scenario
// (one document) or Kubernetes objects, not both.
func (in *input) scenarioOrObjects(scenarios []*yaml.Node, ws *warnings, exp *schema.Expansion) (*input, error) {
	name := in.name
	switch {
	case len(scenarios) > 0 && len(in.objects) > 0:
		return nil, &FieldError{File: name, Line: scenarios[0].Content[0].Line, Err: errors.New("a file holds a scenario or Kubernetes objects, not both")}
	case len(scenarios) > 1:
		return nil, &FieldError{File: name, Line: scenarios[1].Content[0].Line, Err: errors.New("a scenario file is a single YAML document")}
	case len(scenarios) == 1:
		return in, decodeScenario(name, scenarios[0], in.spec, ws, exp)
	}
	return in, nil
}

// readListsByItem switches readKubeList and readStream on; the tests
// that compare them with the reading of a whole file switch it off.
var readListsByItem = true

// readKubeList reads a List of Kubernetes objects (a kubectl dump, in
// JSON or in kubectl's YAML layout) item by item with parse, each decoded
// as it is read (kube.ReadListItem), so that its items are never all held
// as whole trees. For a file that is no List it returns the document it
// parsed, when whole, for the ordinary reading; for any problem, nothing,
// and the ordinary reading reports it.
func readKubeList(name string, data []byte, parse func([]byte, func(int, *yaml.Node) bool) (*yaml.Node, error)) (*input, *yaml.Node) {
	d := &schema.Decoder{} // one cache of struct fields for every item
	var objs [][]*kube.Object
	doc, err := parse(data, func(i int, item *yaml.Node) bool {
		o, ok := kube.ReadListItem(name, i, item, d)
		objs = append(objs, o)
		return ok
	})
	return kubeList(name, doc, objs, err)
}

// readJSONKubeList is readKubeList for JSON, its items read and decoded
// on every core (schema.ParseJSONListItems), each with its own decoder,
// and kept in their order.
func readJSONKubeList(name string, data []byte) (*input, *yaml.Node) {
	doc, objs, err := schema.ParseJSONListItems(data, runtime.GOMAXPROCS(0), func() func(int, *yaml.Node) ([]*kube.Object, bool) {
		d := &schema.Decoder{}
		return func(i int, item *yaml.Node) ([]*kube.Object, bool) { return kube.ReadListItem(name, i, item, d) }
	})
	return kubeList(name, doc, objs, err)
}

// kubeList is the input of a List read item by item: the objects of each
// item, in order.
func kubeList(name string, doc *yaml.Node, objs [][]*kube.Object, err error) (*input, *yaml.Node) {
	switch {
	case err != nil:
		return nil, nil
	case len(objs) == 0 && !kube.IsList(doc):
		return nil, doc // whole: nothing was taken out of it
	case !kube.IsList(doc):
		return nil, nil
	}
	if _, err := kube.Objects(name, doc, nil); err != nil { // the List's own fields
		return nil, nil
	}
	return &input{name: name, spec: &schema.File{}, objects: slices.Concat(objs...)}, nil
}

// decodeScenario decodes a scenario document strictly; fields that are
// accepted but not modelled become warnings.
func decodeScenario(name string, doc *yaml.Node, f *schema.File, ws *warnings, exp *schema.Expansion) error {
	d := &schema.Decoder{Aliases: exp, Warn: func(path string) {
		entry, _, _ := strings.Cut(path, ".")
		if i := strings.Index(path, ")."); i >= 0 {
			entry = path[:i+1] // the name may hold dots
		}
		ws.Add("", schema.FieldOf(path), schema.NotModelled, name+": "+entry)
	}}
	if err := d.Decode(doc, f); err != nil {
		var de *schema.DecodeError
		if errors.As(err, &de) {
			return &FieldError{File: name, Line: de.Line, Path: de.Path, Err: de.Err}
		}
		return &FieldError{File: name, Err: err}
	}
	return nil
}

// parseDocuments parses a file's documents (schema.ParseDocuments); the
// error names the file, and the line when the JSON reader knows it.
func parseDocuments(name string, data []byte) ([]*yaml.Node, bool, error) {
	docs, isJSON, err := schema.ParseDocuments(data)
	if err != nil {
		return nil, false, documentsError(name, err)
	}
	return docs, isJSON, nil
}

// documentsError is a FieldError of a file whose documents do not parse.
func documentsError(name string, err error) error {
	{
		var se *schema.JSONSyntaxError
		if errors.As(err, &se) {
			return &FieldError{File: name, Line: se.Line, Err: se.Err}
		}
		var fe *schema.FlowError
		if errors.As(err, &fe) {
			return &FieldError{File: name, Line: fe.Line, Err: errors.New(fe.Detail())}
		}
		var de *schema.DecodeError
		if errors.As(err, &de) {
			return &FieldError{File: name, Line: de.Line, Path: de.Path, Err: de.Err}
		}
		return &FieldError{File: name, Err: err}
	}
}

// gunzipped returns the contents of a file whose name ends in .gz
// decompressed (of at most limit bytes, as any file), and any other's as
// they are: a large kubectl dump may be kept, or shipped, compressed.
func gunzipped(name string, data []byte, limit int64) ([]byte, error) {
	if !strings.HasSuffix(name, ".gz") {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, &FieldError{File: name, Err: fmt.Errorf("not gzip data: %w", err)}
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(io.LimitReader(zr, limit+1)); err != nil {
		return nil, &FieldError{File: name, Err: fmt.Errorf("gzip: %w", err)}
	}
	if int64(out.Len()) > limit {
		return nil, &FieldError{File: name, Err: fmt.Errorf("decompressed, the file is more than %d bytes, the limit (%s)", limit, byteSize(limit))}
	}
	return out.Bytes(), nil
}

// fileTooLarge is the error for a file above Limits.FileSize.
func fileTooLarge(name string, size, limit int64) error {
	return &FieldError{File: name, Err: fmt.Errorf("the file is %d bytes, more than the limit of %d (%s)", size, limit, byteSize(limit))}
}

// byteSize renders a byte count in binary units ("1 GiB").
func byteSize(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
