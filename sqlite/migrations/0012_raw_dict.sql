-- Raw exchanges (raw_exchanges.request, .response) are compressed with
-- DEFLATE against a preset dictionary (fetch.RawDict) from here on. The
-- rows stored before read the same with it. No table changes: the new
-- version makes an older scent, which reads without the dictionary,
-- refuse the database instead of failing on its newer rows.
SELECT 1;
