package collectiontest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write writes a small collection in the stored layout
// (class/group/URL with '/' as '^'): four department sites whose home
// pages link to course pages (which link to each other) and to other
// pages, and a misc group of course and other pages to train on.
func Write(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := pageWriter(t, dir)
	courseWords := []string{"course syllabus homework lecture", "exam grading lecture notes", "homework assignments due", "course schedule midterm final exam"}
	otherWords := []string{"news weather sports today", "photos of my cat and dog", "recipes for dinner tonight", "travel pictures summer vacation"}
	for i, dep := range []string{"cornell", "texas", "washington", "wisconsin"} {
		host := fmt.Sprintf("http://%c.test", 'a'+i)
		var links []string
		for j := 0; j < 6; j++ {
			links = append(links, fmt.Sprintf(`<a href="/c%d.html">course homework lecture %d</a>`, j, j),
				fmt.Sprintf(`<a href="/o%d.html">photos news %d</a>`, j, j))
			next := fmt.Sprintf(`<a href="/c%d.html">course lecture syllabus</a> <a href="/o%d.html">news photos</a>`, (j+1)%6, (j+2)%6)
			write("course", dep, fmt.Sprintf("%s/c%d.html", host, j), courseWords[j%4]+" "+next)
			write("other", dep, fmt.Sprintf("%s/o%d.html", host, j), otherWords[j%4]+" "+next)
		}
		write("department", dep, host+"/", "department of computer science "+strings.Join(links, " "))
	}
	for j := 0; j < 8; j++ {
		write("course", "misc", fmt.Sprintf("http://m.test/c%d.html", j),
			courseWords[j%4]+" "+courseWords[(j+1)%4]+fmt.Sprintf(` <a href="/c%d.html">course lecture</a> <a href="/o%d.html">news photos</a>`, (j+1)%8, j))
		write("other", "misc", fmt.Sprintf("http://m.test/o%d.html", j),
			otherWords[j%4]+" "+otherWords[(j+1)%4]+fmt.Sprintf(` <a href="/o%d.html">news photos</a>`, (j+1)%8))
	}
	return dir
}

// WriteOther writes a small collection in the stored layout that shares
// no name with WebKB: two sites, groups north (n.test) and south
// (s.test), whose home pages link to a menu page that links to recipe and
// review pages, and a group pool of recipe, review and other pages, each
// on a host of its own, to train on.
func WriteOther(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := pageWriter(t, dir)
	recipeWords := []string{"flour sugar butter bake oven", "simmer the onions garlic stir", "whisk eggs cream pour bake", "chop basil tomatoes salt pepper"}
	reviewWords := []string{"film actors plot rating stars", "novel chapter author verdict", "album songs band rating", "play stage cast verdict"}
	for _, site := range []struct{ group, host string }{{"north", "http://n.test"}, {"south", "http://s.test"}} {
		var links []string
		for j := 0; j < 4; j++ {
			links = append(links, fmt.Sprintf(`<a href="/r%d.html">dish %d</a> <a href="/v%d.html">piece %d</a>`, j, j, j, j))
			write("recipe", site.group, fmt.Sprintf("%s/r%d.html", site.host, j), recipeWords[j]+fmt.Sprintf(` <a href="/r%d.html">next dish</a>`, (j+1)%4))
			write("review", site.group, fmt.Sprintf("%s/v%d.html", site.host, j), reviewWords[j])
		}
		write("other", site.group, site.host+"/menu/", "menu of the house "+strings.Join(links, " "))
		write("other", site.group, site.host+"/", `welcome to our house <a href="/menu/">menu</a>`)
	}
	for j := 0; j < 8; j++ {
		write("recipe", "pool", fmt.Sprintf("http://p%d.test/r.html", j), recipeWords[j%4]+" "+recipeWords[(j+1)%4])
		write("review", "pool", fmt.Sprintf("http://q%d.test/v.html", j), reviewWords[j%4]+" "+reviewWords[(j+1)%4])
		write("other", "pool", fmt.Sprintf("http://o%d.test/", j), "news weather sports today traffic")
	}
	return dir
}

// WritePages writes pages (a file name in the stored layout, such as
// "recipe/north/http:^^n.test^a.html" → the body of its HTML page) as a
// collection folder and returns its path.
func WritePages(t testing.TB, pages map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range pages {
		writePage(t, filepath.Join(dir, filepath.FromSlash(name)), body)
	}
	return dir
}

// AddPage writes into the collection folder dir the page at url labelled
// class in group, whose body is body.
func AddPage(t testing.TB, dir, class, group, url, body string) {
	t.Helper()
	pageWriter(t, dir)(class, group, url, body)
}

// pageWriter returns a function that writes, into the collection folder
// dir, the page at url labelled class in group, whose body is body.
func pageWriter(t testing.TB, dir string) func(class, group, url, body string) {
	return func(class, group, url, body string) {
		t.Helper()
		writePage(t, filepath.Join(dir, class, group, strings.ReplaceAll(url, "/", "^")), body)
	}
}

// writePage writes the HTML page of body at the path name.
func writePage(t testing.TB, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("<html><body>"+body+"</body></html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
