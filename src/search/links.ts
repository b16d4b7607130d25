/**
 * Links into the help desk (contract §9.3), built only when SEARCHDESK_APP_URL (the help desk's
 * FRONTEND_URL) is configured: the agent app's page of a conversation, and the public help-center
 * page of an article — on the portal's custom domain when it has one, as the help desk links it.
 */

/** The help desk's FRONTEND_URL without trailing slashes, or undefined: records then carry no `url`. */
export type AppUrl = string | undefined;

/** `<app>/app/accounts/<account>/conversations/<display id>`. */
export function conversationUrl(appUrl: AppUrl, accountId: number, displayId: number): string | undefined {
  return appUrl === undefined ? undefined : `${appUrl}/app/accounts/${accountId}/conversations/${displayId}`;
}

/** `https://<custom domain>/hc/<portal>/articles/<slug>`, else `<app>/hc/<portal>/articles/<slug>`. */
export function articleUrl(
  appUrl: AppUrl,
  customDomain: string | null,
  portalSlug: string | null,
  slug: string | null,
): string | undefined {
  if (appUrl === undefined || portalSlug === null || slug === null) return undefined;
  // The help desk stores a bare host name; a scheme or trailing slash typed into it is dropped.
  const domain = customDomain
    ?.trim()
    .replace(/^https?:\/\//i, '')
    .replace(/\/+$/, '');
  const base = domain ? `https://${domain}` : appUrl;
  return `${base}/hc/${encodeURIComponent(portalSlug)}/articles/${encodeURIComponent(slug)}`;
}
