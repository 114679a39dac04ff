package render

import (
	"bytes"
	"fmt"

	"lectern.dev/lectern/render/cache"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/search"
)

// updateSearch patches the previous build's search index for the pages
// whose words changed, were added or removed (search.Update): only the
// chunks of the words that changed are written (split or joined with the
// next when they grew or shrank past their bounds), with the meta file;
// the other chunks are kept. It reports whether it did; when it cannot
// (no previous index in the output, a file not as written), the caller
// builds the index again. It runs after the pages' index ids are
// assigned.
func (c *buildCache) updateSearch(s *site, generated map[string]bool) (bool, error) {
	if c.prev == nil || len(c.prev.Search) == 0 || c.out == nil {
		return false, nil
	}
	infos := map[string]output.FileInfo{}
	for _, f := range c.prev.Search {
		infos[f.Name] = f.Info
	}
	// The words of each id in the previous index, and now.
	before := map[int][]byte{}
	for _, rec := range c.prev.Pages {
		if rec.SearchID > 0 {
			before[rec.SearchID-1] = rec.Terms
		}
	}
	var changes []search.Change
	now := map[int]bool{}
	for i, id := range s.searchIDs {
		if id < 0 {
			continue
		}
		now[id] = true
		if old, ok := before[id]; !ok || !bytes.Equal(old, s.search[i].Terms) {
			changes = append(changes, search.Change{ID: id, Old: old, New: s.search[i].Terms})
		}
	}
	for id, old := range before {
		if !now[id] {
			changes = append(changes, search.Change{ID: id, Old: old})
		}
	}
	read := func(name string) ([]byte, error) {
		info, ok := infos[name]
		if !ok {
			return nil, fmt.Errorf("render: %s is not in the previous search index", name)
		}
		data, ok := c.out.ReadKept(name, info)
		if !ok {
			return nil, fmt.Errorf("render: %s is not as the previous build wrote it", name)
		}
		return data, nil
	}
	files, kept, err := search.Update(read, changes)
	if err != nil {
		return false, nil // built again
	}
	for _, name := range kept {
		if !c.out.KeepFile(name, infos[name]) {
			return false, nil
		}
	}
	next := make([]cache.SearchFile, 0, len(kept)+len(files))
	for _, name := range kept {
		c.out.MarkWritten(name)
		s.written++
		generated[name] = true
		next = append(next, cache.SearchFile{Name: name, Info: infos[name]})
	}
	for _, f := range files {
		if err := s.write(f.Name, f.Data); err != nil {
			return true, err
		}
		generated[f.Name] = true
		info, ok := c.out.FileInfo(f.Name)
		if !ok {
			next = nil
		} else if next != nil {
			next = append(next, cache.SearchFile{Name: f.Name, Info: info})
		}
	}
	c.next.Search = next
	return true, nil
}

// fragmentsGone marks changed the fragment files of groups that held a
// page of the previous build's index whose id no page has now (its
// fragment is to go).
func (c *buildCache) fragmentsGone(s *site, groups map[int]*fragmentGroup) {
	if c.prev == nil {
		return
	}
	now := make(map[int]bool, len(s.searchIDs))
	for _, id := range s.searchIDs {
		now[id] = true
	}
	for _, rec := range c.prev.Pages {
		if id := rec.SearchID - 1; id >= 0 && !now[id] {
			if g := groups[id/search.FragmentGroup]; g != nil {
				g.changed = true
			}
		}
	}
}

// readKeptFragments fills in the fragments of g's kept pages from g's
// file as the previous build wrote it (each kept page's record describes
// it: reuse kept the file for each), for g to be written again with its
// other pages changed. It is safe for concurrent use on other groups.
func (c *buildCache) readKeptFragments(s *site, g *fragmentGroup) error {
	fail := func(why string) error {
		return fmt.Errorf("render: the previous build's output changed during this one (build again without the cache's folder): the search fragments of %s, kept, %s",
			s.order[g.kept[0]].File, why)
	}
	keeper, ok := s.out.(output.Keeper)
	if !ok {
		return fail("have no output to be read from")
	}
	old := c.prev.Pages[s.order[g.kept[0]].Path]
	data, ok := keeper.ReadKept(g.name, old.Frag)
	if !ok {
		return fail("are not in " + g.name + " as the previous build wrote it")
	}
	prev, err := search.DecodeFragments(data)
	if err != nil {
		return fail("cannot be read from " + g.name + ": " + err.Error())
	}
	for _, i := range g.kept {
		id := s.searchIDs[i]
		f := prev[id%search.FragmentGroup]
		if f == nil {
			return fail("are not all in " + g.name)
		}
		g.frags[id%search.FragmentGroup] = f
	}
	return nil
}
