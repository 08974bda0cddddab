package wire

// Space is an audio space. Times are Unix milliseconds, null while
// unknown; EndedAt is written as a string, as the hosted service does.
type Space struct {
	ID                          string            `json:"id"`
	State                       string            `json:"state"`
	Title                       string            `json:"title"`
	MediaKey                    string            `json:"media_key"`
	CreatedAt                   *int64            `json:"created_at"`
	ScheduledStart              *int64            `json:"scheduled_start"`
	StartedAt                   *int64            `json:"started_at"`
	EndedAt                     *string           `json:"ended_at"`
	UpdatedAt                   *int64            `json:"updated_at"`
	DisallowJoin                bool              `json:"disallow_join"`
	NarrowCastSpaceType         int               `json:"narrow_cast_space_type"`
	IsEmployeeOnly              bool              `json:"is_employee_only"`
	IsLocked                    bool              `json:"is_locked"`
	IsSpaceAvailableForReplay   bool              `json:"is_space_available_for_replay"`
	IsSpaceAvailableForClipping bool              `json:"is_space_available_for_clipping"`
	ConversationControls        int               `json:"conversation_controls"`
	TotalReplayWatched          int64             `json:"total_replay_watched"`
	TotalLiveListeners          int64             `json:"total_live_listeners"`
	Creator                     *Profile          `json:"creator"`
	Participants                SpaceParticipants `json:"participants"`
}

// SpaceParticipants are a space's admins and speakers; Total counts both.
type SpaceParticipants struct {
	Total    int       `json:"total"`
	Admins   []Profile `json:"admins"`
	Speakers []Profile `json:"speakers"`
}
