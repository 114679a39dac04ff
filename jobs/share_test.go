package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/internal/precompress"
)

// A deployment that changes one page stores that page's content and
// nothing else: every other file, and its compressed copies, is shared
// with the deployment before (whose manifest is prev). Files of the same
// content are stored once. Stamps spare hashing the files that did not
// change, and a stamp that lies about a changed file is not trusted.
func TestPublishSiteShares(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		write("p"+string(rune('a'+i))+".html", strings.Repeat("<p>page "+string(rune('a'+i))+"</p>\n", 60))
	}
	write("same-1.txt", strings.Repeat("twin\n", 200))
	write("same-2.txt", strings.Repeat("twin\n", 200))
	b := blobtest.Folder(t)
	stamps := map[string]fileStamp{}
	first, err := publishSite(ctx, b, dir, "prj_1", "dep_1", time.Now(), nil, stamps)
	if err != nil {
		t.Fatal(err)
	}
	if first.files != 22 || first.newFiles != 21 {
		t.Fatalf("first publish: %d files, %d stored; want 22, 21 (the twins stored once)", first.files, first.newFiles)
	}
	if len(stamps) != 22 {
		t.Fatalf("%d stamps after the first publish, want 22", len(stamps))
	}

	write("pc.html", "<p>changed</p>"+strings.Repeat(" words", 200))
	os.Remove(filepath.Join(dir, "pd.html"))
	second, err := publishSite(ctx, b, dir, "prj_1", "dep_2", time.Now(), first.manifest, stamps)
	if err != nil {
		t.Fatal(err)
	}
	if second.files != 21 || second.newFiles != 1 {
		t.Fatalf("one page changed and one removed: %d files, %d stored; want 21, 1", second.files, second.newFiles)
	}
	if _, ok := stamps["pd.html"]; ok || len(stamps) != 21 {
		t.Errorf("stamps keep the removed page, or miss some: %d", len(stamps))
	}
	for name, f := range second.manifest.Files {
		if old, ok := first.manifest.Files[name]; ok && name != "pc.html" && old != f {
			t.Errorf("%s: %+v in the second manifest, want the first's %+v (copies shared)", name, f, old)
		}
		if _, err := b.ReadAll(ctx, precompress.ObjectKey(blobstore.ProjectPrefix("prj_1"), f.Hash)); err != nil {
			t.Errorf("%s: its stored content cannot be read: %v", name, err)
		}
	}
	if second.manifest.Files["pc.html"].Hash == first.manifest.Files["pc.html"].Hash {
		t.Error("the changed page kept its old hash")
	}

	// A stamp whose size and time match but whose file changed is
	// trusted (that is what stamps are for), so the time must change
	// with the content: a rewrite with the old time and another size is
	// hashed again.
	write("pe.html", "short")
	st := stamps["pe.html"]
	os.Chtimes(filepath.Join(dir, "pe.html"), time.Unix(0, st.MTime), time.Unix(0, st.MTime))
	third, err := publishSite(ctx, b, dir, "prj_1", "dep_3", time.Now(), second.manifest, stamps)
	if err != nil {
		t.Fatal(err)
	}
	if third.newFiles != 1 || third.manifest.Files["pe.html"].Size != 5 {
		t.Errorf("a rewritten page of another size: %d stored, %+v; want it stored again", third.newFiles, third.manifest.Files["pe.html"])
	}
}
