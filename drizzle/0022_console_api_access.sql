-- oidc.api_access makes an application an API client (its users' tokens may carry the API audience).
-- Applications created before the setting existed are not API clients (absent means false), except
-- the console's client, the instance's own API client, which keeps working.
UPDATE "applications" SET "oidc" = "oidc" || '{"apiAccess": true}'::jsonb
WHERE "id" = 'portcullis-console' AND "oidc" IS NOT NULL AND "oidc"->>'apiAccess' IS NULL;
