package warc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxFileSize is the size past which a Dir starts a new file.
const DefaultMaxFileSize = 1 << 30

// openSuffix marks the file a Dir is writing.
const openSuffix = ".open"

// DirConfig says where and how a Dir writes.
type DirConfig struct {
	// Path is the directory; it is created when missing.
	Path string
	// Prefix starts every file name: PREFIX-TIME-SEQ.warc.gz. Default "scent".
	Prefix string
	// MaxFileSize starts a new file once a file has reached it (a group
	// of records written together is never split). Default
	// DefaultMaxFileSize.
	MaxFileSize int64
	// Info are the fields of the warcinfo record at the start of each
	// file (application/warc-fields), such as software and operator.
	Info Header
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Dir writes records into rotated files of a directory. It is not safe
// for concurrent use.
type Dir struct {
	cfg  DirConfig
	f    *os.File
	name string // of the open file, without openSuffix
	w    *Writer
	size int64
	seq  int
	// Repaired lists the files left open by an earlier run that Open
	// closed, with the bytes it cut from each.
	Repaired []Repair
}

// Repair is an open file left by an interrupted run and closed by OpenDir.
type Repair struct {
	File    string // its name after closing
	Records int    // complete records kept
	Cut     int64  // bytes of an incomplete record removed
}

var fileSeq = regexp.MustCompile(`-(\d{5,})\.warc\.gz(\.open)?$`)

// OpenDir opens a directory for writing: it closes the files an earlier
// run left open (cut after their last complete record) and numbers the
// next file after the highest existing one. The first file is created
// with the first write.
func OpenDir(ctx context.Context, cfg DirConfig) (*Dir, error) {
	if cfg.Path == "" {
		return nil, errors.New("warc dir: empty path")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "scent"
	}
	if cfg.MaxFileSize <= 0 {
		cfg.MaxFileSize = DefaultMaxFileSize
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := os.MkdirAll(cfg.Path, 0o755); err != nil {
		return nil, fmt.Errorf("warc dir: %w", err)
	}
	d := &Dir{cfg: cfg}
	ents, err := os.ReadDir(cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("warc dir: %w", err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := fileSeq.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n >= d.seq {
			d.seq = n + 1
		}
		if m[2] != "" {
			path := filepath.Join(cfg.Path, e.Name())
			rep, err := RepairFile(path)
			if err != nil {
				return nil, err
			}
			d.Repaired = append(d.Repaired, rep)
		}
	}
	return d, nil
}

// RepairFile cuts the file at path after its last complete record and,
// when its name ends in ".open", renames it without that suffix.
func RepairFile(path string) (Repair, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return Repair{}, fmt.Errorf("repair %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Repair{}, fmt.Errorf("repair %s: %w", path, err)
	}
	rd := NewReader(f)
	var rep Repair
	var good int64
	for {
		_, err := rd.Next()
		if err != nil {
			break // io.EOF, or the damaged tail to cut
		}
		rep.Records++
		good = rd.End()
	}
	rep.Cut = fi.Size() - good
	if rep.Cut > 0 {
		if err := f.Truncate(good); err != nil {
			return rep, fmt.Errorf("repair %s: %w", path, err)
		}
	}
	if err := f.Sync(); err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	final := path
	if filepath.Ext(path) == openSuffix {
		final = path[:len(path)-len(openSuffix)]
		if err := os.Rename(path, final); err != nil {
			return rep, fmt.Errorf("repair %s: %w", path, err)
		}
	}
	rep.File = final
	return rep, nil
}

// Write writes records together into the open file, starting a new file
// first when the open one has reached the size limit. The records are
// written with one write call, so a process killed in the middle of
// Write leaves at most this group incomplete, which OpenDir cuts off.
func (d *Dir) Write(ctx context.Context, recs ...*Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.f != nil && d.size >= d.cfg.MaxFileSize {
		if err := d.closeFile(); err != nil {
			return err
		}
	}
	if d.f == nil {
		if err := d.newFile(); err != nil {
			return err
		}
	}
	var buf []byte
	for _, r := range recs {
		b, err := d.w.Encode(r)
		if err != nil {
			return err
		}
		buf = append(buf, b...)
	}
	n, err := d.f.Write(buf)
	d.size += int64(n)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.name, err)
	}
	return nil
}

// Files lists the closed files of the directory, in name order.
func (d *Dir) Files() ([]string, error) {
	ms, err := filepath.Glob(filepath.Join(d.cfg.Path, d.cfg.Prefix+"-*.warc.gz"))
	sort.Strings(ms)
	return ms, err
}

func (d *Dir) newFile() error {
	now := d.cfg.Now()
	d.name = fmt.Sprintf("%s-%s-%05d.warc.gz", d.cfg.Prefix, now.UTC().Format("20060102150405"), d.seq)
	d.seq++
	path := filepath.Join(d.cfg.Path, d.name)
	f, err := os.OpenFile(path+openSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("warc dir: %w", err)
	}
	d.f, d.size = f, 0
	d.w = NewWriter(io.Discard)
	d.w.Now = d.cfg.Now
	info := NewRecord(TypeWarcinfo, now, "", fieldsBlock(d.cfg.Info))
	info.Header.Add("WARC-Filename", d.name)
	info.Header.Add("Content-Type", "application/warc-fields")
	b, err := d.w.Encode(info)
	if err != nil {
		return err
	}
	n, err := f.Write(b)
	d.size += int64(n)
	if err != nil {
		return fmt.Errorf("write %s: %w", d.name, err)
	}
	return nil
}

// FieldsBlock formats fields as an application/warc-fields block.
func FieldsBlock(h Header) []byte { return fieldsBlock(h) }

func fieldsBlock(h Header) []byte {
	var b []byte
	for _, f := range h {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, strings.NewReplacer("\r", " ", "\n", " ").Replace(f.Value)...)
		b = append(b, "\r\n"...)
	}
	return b
}

func (d *Dir) closeFile() error {
	f := d.f
	d.f = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("close %s: %w", d.name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", d.name, err)
	}
	path := filepath.Join(d.cfg.Path, d.name)
	if err := os.Rename(path+openSuffix, path); err != nil {
		return fmt.Errorf("close %s: %w", d.name, err)
	}
	return nil
}

// Close closes the open file, which takes its final name.
func (d *Dir) Close() error {
	if d.f == nil {
		return nil
	}
	return d.closeFile()
}
