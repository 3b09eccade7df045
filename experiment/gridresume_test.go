package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/scent-crawler/scent/report"
)

// settingsGrid is a grid over a one-file archive. A copy of the archive
// with the same size and time sits at its path + "x", where changing
// the Archive field leads.
func settingsGrid(t *testing.T) Grid {
	t.Helper()
	archive := filepath.Join(t.TempDir(), "archive.tgz")
	mod := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, p := range []string{archive, archive + "x"} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	return gridOpts(archive, filepath.Join(t.TempDir(), "grid"))
}

func gridKey(t *testing.T, o Grid) string {
	t.Helper()
	s, err := o.settings()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Key) != 64 {
		t.Fatalf("key %q is not a SHA-256 digest", s.Key)
	}
	return s.Key
}

// changeValue changes v, a settable value of a basic kind, a slice of
// one or a struct (its first field), and reports whether it could.
func changeValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
	default:
		return false
	}
	return true
}

// TestGrid_settings changes every field of Spec, one at a time (and every
// field of the structs it holds): each changes the key, except those that
// do not change a cell's result (the output folder, the command line,
// fields tagged json:"-") and the grid's own parameters, which name the
// cells. A field added to Spec is covered without a change here.
func TestGrid_settings(t *testing.T) {
	base := settingsGrid(t)
	key := gridKey(t, base)
	if again := gridKey(t, base); again != key {
		t.Fatalf("the same grid has two keys: %s, %s", key, again)
	}
	same := map[string]bool{
		"Out": true, "Command": true, "CrawlProgress": true, "LearnOptions.Canonical": true, "LearnOptions.Prior": true, // not a cell's result (LearnPrior sets Prior)
		"Topics": true, "Strategy": true, "Frontier": true, "Model.K": true, "Model.Window": true, "Model.Threshold": true, // the cells' own
	}
	tested := 0
	var walk func(prefix string, typ reflect.Type, field func(*Grid) reflect.Value)
	walk = func(prefix string, typ reflect.Type, field func(*Grid) reflect.Value) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			name := prefix + f.Name
			get := func(o *Grid) reflect.Value { return field(o).Field(i) }
			if f.Type.Kind() == reflect.Struct {
				walk(name+".", f.Type, get)
				continue
			}
			t.Run(name, func(t *testing.T) {
				o := base
				o.Spec.Topics = append([]string(nil), base.Spec.Topics...)
				v := get(&o)
				if f.Type.Kind() == reflect.Func {
					v.Set(reflect.MakeFunc(f.Type, func(in []reflect.Value) []reflect.Value {
						out := make([]reflect.Value, f.Type.NumOut())
						for i := range out {
							out[i] = reflect.Zero(f.Type.Out(i))
						}
						return out
					}))
				} else if !changeValue(v) {
					t.Fatalf("%s: a %s cannot be changed by this test", name, f.Type)
				}
				tested++
				if changed := gridKey(t, o) != key; changed == same[name] {
					t.Errorf("changing %s changes the key: %v, want %v", name, changed, !same[name])
				}
			})
		}
	}
	walk("", reflect.TypeOf(Spec{}), func(o *Grid) reflect.Value { return reflect.ValueOf(&o.Spec).Elem() })
	if tested < 20 {
		t.Errorf("only %d fields changed", tested)
	}

	// The archive's contents count, its path as given only up to Clean.
	o := base
	o.Archive = filepath.Join(filepath.Dir(base.Archive), ".", filepath.Base(base.Archive))
	if gridKey(t, o) != key {
		t.Error("another spelling of the archive's path changes the key")
	}
	if err := os.WriteFile(base.Archive, []byte("xy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if gridKey(t, base) == key {
		t.Error("another archive at the same path keeps the key")
	}
}

// TestPrepareCells keeps the finished cells of a rerun with the same
// settings and starts over, saying so, with other settings, here a switch
// the settings once had to list by hand.
func TestPrepareCells(t *testing.T) {
	o := settingsGrid(t)
	s, err := o.settings()
	if err != nil {
		t.Fatal(err)
	}
	var notices bytes.Buffer
	notice := func(msg string) { notices.WriteString(msg + "\n") }
	if done, err := prepareCells(o.Out, s, notice); err != nil || len(done) != 0 {
		t.Fatalf("first run: %d cells, %v", len(done), err)
	}
	c := &report.GridCell{Name: "course-bfs", Report: &report.Report{Pages: 3}}
	if err := writeCell(o.Out, c); err != nil {
		t.Fatal(err)
	}
	done, err := prepareCells(o.Out, s, notice)
	if err != nil || len(done) != 1 || done[c.Name] == nil || done[c.Name].Report.Pages != 3 {
		t.Fatalf("rerun with the same settings: %v, %v; want the finished cell", done, err)
	}
	if notices.Len() != 0 {
		t.Errorf("rerun with the same settings says: %s", notices.String())
	}

	o.SiteNorm = !o.SiteNorm
	other, err := o.settings()
	if err != nil {
		t.Fatal(err)
	}
	done, err = prepareCells(o.Out, other, notice)
	if err != nil || len(done) != 0 {
		t.Fatalf("rerun with --site-norm changed: %d cells kept, %v; want none", len(done), err)
	}
	if !strings.Contains(notices.String(), "other settings: starting over") {
		t.Errorf("rerun with other settings says %q, want that it starts over", notices.String())
	}
	if _, err := os.Stat(filepath.Join(o.Out, "cells", c.Name)); !os.IsNotExist(err) {
		t.Errorf("the cell of the other settings is still there: %v", err)
	}
}
