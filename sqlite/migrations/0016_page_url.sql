-- A page's URL is kept once, in urls (pages.url_id): pages.url, a copy
-- of it, is dropped. Readers join urls, as pageURLColumn in read.go
-- does; by hand:
--
--     SELECT u.url, p.status FROM pages p JOIN urls u ON u.id = p.url_id
ALTER TABLE pages DROP COLUMN url;
