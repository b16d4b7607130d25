-- Triage-shaped stand-in for L (bench:triage plan reading until the generator builds the triage shape):
-- account 1 with 2M conversations, 9 small accounts. Run on a database holding searchdesk's schema
-- (psql -f src/db/sql/schema.sql), then `searchdesk db indexes`.
SELECT setseed(0.48);
INSERT INTO accounts (id, name, status, feature_flags) SELECT g, 'Account ' || g, 0, 0 FROM generate_series(1, 10) g;
INSERT INTO users (id, name, email) SELECT g, 'User ' || g, 'user' || g || '@example.test' FROM generate_series(1, 600) g;
-- account 1: user 1 admin, users 2..501 agents (500 agents)
INSERT INTO account_users (account_id, user_id, role) SELECT 1, g, CASE WHEN g = 1 THEN 1 ELSE 0 END FROM generate_series(1, 501) g;
INSERT INTO account_users (account_id, user_id, role) SELECT a, 501 + a, 1 FROM generate_series(2, 10) a;
INSERT INTO access_tokens (owner_type, owner_id, token) SELECT 'User', g, 'tok' || g FROM generate_series(1, 600) g;
-- 100 inboxes in account 1, 3 per small account
INSERT INTO inboxes (id, account_id, name, channel_type) SELECT g, 1, 'Inbox ' || g, 'Channel::Email' FROM generate_series(1, 100) g;
INSERT INTO inboxes (id, account_id, name, channel_type) SELECT 100 + (a - 2) * 3 + k, a, 'Inbox', 'Channel::Api' FROM generate_series(2, 10) a, generate_series(1, 3) k;
-- each agent in 10 inboxes
INSERT INTO inbox_members (user_id, inbox_id) SELECT u, ((u * 7 + k * 10) % 100) + 1 FROM generate_series(2, 501) u, generate_series(0, 9) k ON CONFLICT DO NOTHING;
INSERT INTO teams (id, account_id, name) SELECT g, 1, 'Team ' || g FROM generate_series(1, 10) g;
INSERT INTO labels (account_id, title, color) SELECT 1, 'label-' || g, '#123456' FROM generate_series(1, 30) g;
INSERT INTO tags (id, name) SELECT g, 'label-' || g FROM generate_series(1, 30) g;
-- conversations
INSERT INTO conversations (id, account_id, inbox_id, display_id, status, contact_id, assignee_id, team_id, created_at, updated_at, last_activity_at,
                           priority, waiting_since, first_reply_created_at)
SELECT g, 1, 1 + (abs(hashint4(g)) % 100), g,
       s.status,
       NULL,
       CASE WHEN random() < 0.3 THEN NULL ELSE 1 + floor(random() * 501)::int END,
       CASE WHEN random() < 0.4 THEN NULL ELSE 1 + floor(random() * 10)::int END,
       c.created, c.created, c.created + (random() * (timestamp '2026-11-28' - c.created)) * random(),
       CASE WHEN random() < 0.6 THEN NULL ELSE floor(random() * 4)::int END,
       CASE WHEN s.status = 0 AND random() < 0.4 THEN c.created + interval '1 hour' * random() * 48 END,
       CASE WHEN random() < 0.12 THEN NULL ELSE c.created + interval '1 minute' * random() * 600 END
FROM generate_series(1, 2000000) g,
LATERAL (SELECT timestamp '2026-11-28' - interval '1 second' * floor(random() * 365 * 86400) AS created) c,
LATERAL (SELECT CASE WHEN r < 0.25 THEN 0 WHEN r < 0.9 THEN 1 WHEN r < 0.95 THEN 2 ELSE 3 END AS status FROM (SELECT random() + 0 * g AS r) x) s;
INSERT INTO conversations (id, account_id, inbox_id, display_id, status, assignee_id, created_at, updated_at, last_activity_at)
SELECT 2000000 + g, 2 + (g % 9), 101 + (g % 9) * 3, g, g % 4, NULL, now(), now(), now() - interval '1 minute' * g FROM generate_series(1, 9000) g;
-- taggings: half the conversations carry 1-2 labels; label-1 is busy (~20% of all)
INSERT INTO taggings (tag_id, taggable_type, taggable_id, context, created_at)
SELECT 1, 'Conversation', g, 'labels', now() FROM generate_series(1, 2000000) g WHERE abs(hashint4(g * 3)) % 5 = 0;
INSERT INTO taggings (tag_id, taggable_type, taggable_id, context, created_at)
SELECT 2 + abs(hashint4(g * 11)) % 29, 'Conversation', g, 'labels', now() FROM generate_series(1, 2000000) g WHERE abs(hashint4(g * 7)) % 2 = 0;
SELECT setval('conversations_id_seq', 3000000);
VACUUM ANALYZE;
