-- Keeps user_counts (live users per organization) in step with every write to users, whoever
-- writes: one delta row per statement and organization, so concurrent writers never contend.
CREATE FUNCTION users_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO user_counts (org_id, live)
  SELECT org_id, count(*) FROM new_rows WHERE state <> 'REMOVED' GROUP BY org_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION users_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO user_counts (org_id, live)
  SELECT org_id, sum(d) FROM (
    SELECT org_id, -1 AS d FROM old_rows WHERE state <> 'REMOVED'
    UNION ALL
    SELECT org_id, 1 AS d FROM new_rows WHERE state <> 'REMOVED'
  ) changes GROUP BY org_id HAVING sum(d) <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION users_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO user_counts (org_id, live)
  SELECT org_id, -count(*) FROM old_rows WHERE state <> 'REMOVED' GROUP BY org_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER users_count_insert AFTER INSERT ON users REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION users_count_inserted();
--> statement-breakpoint
CREATE TRIGGER users_count_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION users_count_updated();
--> statement-breakpoint
CREATE TRIGGER users_count_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION users_count_deleted();
--> statement-breakpoint
INSERT INTO user_counts (org_id, live) SELECT org_id, count(*) FROM users WHERE state <> 'REMOVED' GROUP BY org_id;
