package roosttest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/roostapi/roost/internal/server"
	"github.com/roostapi/roost/internal/world/fixture"
)

// IDs are the ids fixtures were seeded with, by the names they used.
type IDs struct {
	// Users are the users' ids by screen name.
	Users map[string]int64
	// Posts are the posts' ids by ref.
	Posts map[string]int64
	// Lists and Communities are ids by ref, or by name without one.
	Lists, Communities map[string]int64
	// Spaces are the spaces' ids in order.
	Spaces []string
	// PostIDs are every post's id, in the order of the files.
	PostIDs []int64
}

// LoadFixtures seeds fixture files into the running world, in one
// transaction, as Fixtures seeds them at the start (references resolve in
// the files first, then in the world), and returns the ids they were
// given.
func (s *Server) LoadFixtures(paths ...string) IDs {
	s.tb.Helper()
	return s.load(paths, nil)
}

// LoadFixtureJSON seeds a fixture document written in JSON, as
// LoadFixtures seeds a file.
func (s *Server) LoadFixtureJSON(doc []byte) IDs {
	s.tb.Helper()
	return s.load(nil, [][]byte{doc})
}

func (s *Server) load(paths []string, docs [][]byte) IDs {
	s.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupWait)
	defer cancel()
	ids, err := seed(ctx, s.store, paths, docs)
	if err != nil {
		s.fail("%v", err)
	}
	return ids
}

// seed writes fixture files and JSON documents into st in one
// transaction (nothing when there are none).
func seed(ctx context.Context, st server.Store, paths []string, docs [][]byte) (IDs, error) {
	if len(paths) == 0 && len(docs) == 0 {
		return IDs{}, nil
	}
	files, err := fixture.ReadFiles(paths, fixture.DefaultNow)
	if err != nil {
		return IDs{}, err
	}
	for i, data := range docs {
		name := fmt.Sprintf("fixture document %d", i+1)
		doc, err := fixture.Read(name, data, fixture.JSON, fixture.DefaultNow)
		if err != nil {
			return IDs{}, err
		}
		files = append(files, fixture.File{Name: name, Doc: doc})
	}
	res, _, err := fixture.Seed(ctx, st.World(), st, files)
	if err != nil {
		return IDs{}, err
	}
	return idsOf(res), nil
}

// idsOf reads a fixture's result, whose ids are decimal strings.
func idsOf(r fixture.Result) IDs {
	byName := func(m map[string]string) map[string]int64 {
		out := make(map[string]int64, len(m))
		for k, v := range m {
			out[k], _ = strconv.ParseInt(v, 10, 64)
		}
		return out
	}
	ids := IDs{Users: byName(r.Users), Posts: byName(r.Posts), Lists: byName(r.Lists),
		Communities: byName(r.Communities), Spaces: r.Spaces}
	for _, v := range r.PostIDs {
		id, _ := strconv.ParseInt(v, 10, 64)
		ids.PostIDs = append(ids.PostIDs, id)
	}
	return ids
}

// Snapshot is a saved copy of the world (Server.Snapshot).
type Snapshot struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// Users and Posts are the rows the copy holds.
	Users int64 `json:"users"`
	Posts int64 `json:"posts"`
}
