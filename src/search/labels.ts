/**
 * A conversation's labels as the help desk keeps them (contract §9.2–9.3): its `taggings` with
 * context `labels` on taggable_type `Conversation`, each naming a shared `tags` row whose name is
 * the label's title. `conversations.cached_label_list` is the help desk's cache of the same list,
 * but nothing guarantees it is current, so it is not read.
 */

/**
 * SQL: the label titles of conversation `c` (a row with the columns of `conversations` as alias
 * c), alphabetical, as a json array (`[]` without labels). A scalar subquery per row, like the
 * rest of CONVERSATION_DECORATION: the taggings through
 * `index_taggings_on_taggable_id_and_taggable_type_and_context` (its three columns are the
 * conditions), each tag by primary key (`LIMIT 1`, so `tags`, shared by every account, is never
 * read whole into a hash). The constants are the help desk's, never a caller's value.
 */
export const CONVERSATION_LABELS = `(
      SELECT coalesce(json_agg(lt.name ORDER BY lt.name), '[]'::json)
      FROM taggings tgs
      CROSS JOIN LATERAL (SELECT tg.name FROM tags tg WHERE tg.id = tgs.tag_id LIMIT 1) lt
      WHERE tgs.taggable_id = c.id AND tgs.taggable_type = 'Conversation' AND tgs.context = 'labels'
    )`;
