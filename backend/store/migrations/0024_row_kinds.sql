-- 0024: the rows of one kind of a session without reading its other rows: the chunk table
-- filtered by kind (SeqsOfKind), the last reply of the model (LastReply). An index entry is a
-- few dozen bytes per row, written with the row.
CREATE INDEX chunks_kind ON chunks(session_id, kind, seq);
