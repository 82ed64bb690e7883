package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A folder given as an input stands for its files, as kubectl apply -f
// FOLDER reads one: the files directly in it whose names end in .yaml,
// .yml or .json (or one of those and .gz, read decompressed), in name
// order. Other files are not inputs (a README, a
// kustomization's patches in another format) and are passed over. Its
// sub-folders are not read either, as kubectl does not without -R; the
// ones holding input files are listed in a warning, so that nothing is
// left out unsaid. A folder without an input file is an error: an empty
// input is almost always a wrong path.

// inputExtensions are the file name endings a folder's inputs have.
var inputExtensions = []string{".yaml", ".yml", ".json"}

// InputFiles lists the files paths stand for, in the order they are read:
// a file stands for itself, a folder for the .yaml, .yml and .json files
// directly in it (and those names with .gz), in name order. It is what
// LoadFiles reads; a program that ships the inputs elsewhere (a sweep's
// ConfigMaps) ships these.
func InputFiles(paths []string) ([]string, error) {
	files, _, err := expandPaths(paths)
	return files, err
}

// expandPaths lists the files paths stand for, and the sub-folders with
// input files that were passed over.
func expandPaths(paths []string) (files, skipped []string, err error) {
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, &FieldError{File: p, Err: err}
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		in, sub, err := folderInputs(p)
		if err != nil {
			return nil, nil, err
		}
		files, skipped = append(files, in...), append(skipped, sub...)
	}
	return files, skipped, nil
}

// folderInputs lists a folder's input files in name order, and its
// sub-folders that hold input files.
func folderInputs(dir string) (files, skipped []string, err error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, nil, &FieldError{File: dir, Err: err}
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case isFolder(path, e):
			if holdsInputs(path) {
				skipped = append(skipped, path)
			}
		case isInputName(e.Name()):
			files = append(files, path)
		}
	}
	if len(files) == 0 {
		return nil, nil, &FieldError{File: dir, Err: errors.New("the folder holds no .yaml, .yml or .json file (its sub-folders are not read)")}
	}
	return files, skipped, nil
}

// isFolder reports whether a folder entry is a folder, following a
// symbolic link as kubectl does.
func isFolder(path string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// isInputName reports whether a file name has an input's ending.
func isInputName(name string) bool {
	return slices.Contains(inputExtensions, filepath.Ext(strings.TrimSuffix(name, ".gz")))
}

// holdsInputs reports whether a folder holds an input file directly
// (false when it cannot be read: it is not read anyway).
func holdsInputs(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !e.IsDir() && isInputName(e.Name()) })
}

// warnSkipped lists the sub-folders passed over in one warning.
func warnSkipped(ws *warnings, skipped []string) {
	for _, path := range skipped {
		ws.Add("", "sub-folder of an input folder", "not read, as kubectl apply -f FOLDER does not (give it as an input of its own)", path)
	}
}
