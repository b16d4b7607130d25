/**
 * The read operations as the surfaces run them: one function per operation name, returning the
 * body (REST body = MCP structuredContent) and the paging facts both surfaces report.
 */
import type { SearchContext } from '../context.js';
import {
  CONTACT_CONVERSATIONS_PAGE_SIZE,
  TRANSCRIPT_PAGE_SIZE,
  type GetArticleParams,
  type GetContactParams,
  type ReadOperation,
  type ReadParamsOf,
} from '../params.js';
import type { ArticleDetail, ContactDetail, ConversationTranscript } from '../records.js';
import { getArticle } from './article.js';
import { getContact } from './contact.js';
import { getConversation } from './conversation.js';

/** Paging facts of a read (MCP `_meta`); `has_more` is keyed by what reads further (a cursor or a list). */
export interface ReadMeta {
  page?: number;
  per_page?: number;
  has_more?: Record<string, boolean>;
  engine: 'postgres';
}

export interface ReadResult {
  body: ConversationTranscript | ContactDetail | ArticleDetail;
  meta: ReadMeta;
}

/** Runs one read operation with validated parameters for an authorised caller. */
export async function runRead<O extends ReadOperation>(ctx: SearchContext, op: O, params: ReadParamsOf<O>): Promise<ReadResult> {
  switch (op) {
    case 'get_conversation': {
      const body = await getConversation(ctx, params);
      return { body, meta: { per_page: TRANSCRIPT_PAGE_SIZE, has_more: body.meta.has_more, engine: 'postgres' } };
    }
    case 'get_contact': {
      const p = params as GetContactParams;
      const { detail, hasMore } = await getContact(ctx, p);
      return {
        body: detail,
        meta: {
          page: p.page ?? 1,
          per_page: CONTACT_CONVERSATIONS_PAGE_SIZE,
          has_more: { conversations: hasMore },
          engine: 'postgres',
        },
      };
    }
    case 'get_article':
      return { body: await getArticle(ctx, params as GetArticleParams), meta: { engine: 'postgres' } };
    default:
      throw new Error(`unknown read operation ${String(op)}`);
  }
}
