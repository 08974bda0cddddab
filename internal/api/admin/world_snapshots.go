package admin

import (
	"errors"
	"net/http"
	"reflect"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// worldSnapshotRoutes save, list, restore and drop copies of the world
// (docs/testing.md, "Snapshots").
func worldSnapshotRoutes() []route {
	snap, name := reflect.TypeFor[social.Snapshot](), reflect.TypeFor[snapshotRequest]()
	return []route{
		{"POST", "/admin/world/snapshots", "Save the world as it is now under a name (users, posts, relations, search " +
			"indexes, tombstones, the living world's state; never keys, ledger or monitors)", (*handler).saveSnapshot,
			name, 201, snap, nil, []int{400, 409, 422}, "", 0},
		{"GET", "/admin/world/snapshots", "Every snapshot, by name", (*handler).listSnapshots,
			nil, 200, reflect.TypeFor[snapshotsBody](), nil, []int{422}, "", 0},
		{"POST", "/admin/world/snapshots/{name}/restore", "Put the world back exactly as the snapshot holds it, in one " +
			"transaction; keys, credits, ledger and monitors stay as they are, and every cache forgets what it held",
			(*handler).restoreSnapshot, nil, 200, snap, nil, []int{404, 409, 422}, "", 0},
		{"DELETE", "/admin/world/snapshots/{name}", "Drop a snapshot (204)", (*handler).dropSnapshot,
			nil, 204, nil, nil, []int{404, 422}, "", 0},
	}
}

// The snapshot routes' bodies.
type (
	snapshotRequest struct {
		Name string `json:"name"` // 1 to 32 lower-case letters, digits, _ or -
	}
	snapshotsBody struct {
		Snapshots []social.Snapshot `json:"snapshots"`
	}
)

// snapshots is the store's snapshots, or nil (answered 404) when the
// server has none.
func (h *handler) snapshots(w http.ResponseWriter) social.Snapshots {
	if h.svc.Snapshots == nil {
		writeError(w, http.StatusNotFound, "Unknown endpoint: this server keeps no snapshots")
	}
	return h.svc.Snapshots
}

// snapshotFail answers a snapshot error: 404 for an unknown snapshot,
// 409 for a name taken (or a snapshot of another schema), 422 for a bad
// name, else as fail.
func (h *handler) snapshotFail(w http.ResponseWriter, r *http.Request, err error) {
	msg := err.Error()
	for _, e := range []error{social.ErrNotFound, social.ErrConflict, social.ErrInvalid} {
		msg = strings.TrimSuffix(msg, ": "+e.Error())
	}
	switch {
	case errors.Is(err, social.ErrNotFound):
		writeError(w, http.StatusNotFound, "Snapshot not found: "+r.PathValue("name"))
	case errors.Is(err, social.ErrConflict):
		writeError(w, http.StatusConflict, msg)
	case errors.Is(err, social.ErrInvalid):
		writeError(w, http.StatusUnprocessableEntity, msg)
	default:
		h.fail(w, r, err)
	}
}

func (h *handler) saveSnapshot(w http.ResponseWriter, r *http.Request) {
	s := h.snapshots(w)
	if s == nil {
		return
	}
	var req snapshotRequest
	if !h.decode(w, r, &req) {
		return
	}
	snap, err := s.SaveSnapshot(r.Context(), req.Name)
	if err != nil {
		h.snapshotFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, snap)
}

func (h *handler) listSnapshots(w http.ResponseWriter, r *http.Request) {
	s := h.snapshots(w)
	if s == nil {
		return
	}
	list, err := s.ListSnapshots(r.Context())
	if err != nil {
		h.snapshotFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, snapshotsBody{Snapshots: list})
}

func (h *handler) restoreSnapshot(w http.ResponseWriter, r *http.Request) {
	s := h.snapshots(w)
	if s == nil {
		return
	}
	snap, err := s.RestoreSnapshot(r.Context(), r.PathValue("name"))
	if err != nil {
		h.snapshotFail(w, r, err)
		return
	}
	h.log.Info("world restored", "snapshot", snap.Name)
	writeJSON(w, http.StatusOK, snap)
}

func (h *handler) dropSnapshot(w http.ResponseWriter, r *http.Request) {
	s := h.snapshots(w)
	if s == nil {
		return
	}
	if err := s.DropSnapshot(r.Context(), r.PathValue("name")); err != nil {
		h.snapshotFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
