package render

// writeNavFiles writes the navigation files of the sections whose sidebar
// is split between their pages and that file (render/layout:
// sidebar_split.go, navfile.go), and marks them in generated.
func (s *site) writeNavFiles(generated map[string]bool) error {
	for _, f := range s.theme.NavFiles() {
		if err := s.write(f.Name, f.Data); err != nil {
			return err
		}
		generated[f.Name] = true
	}
	return nil
}
