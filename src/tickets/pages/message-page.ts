/** The small HTML pages of the ticket service outside the web app: login and invite failures, the connect flow's errors, and pages that moved. */
import { html, htmlDocument, htmlResponse, type Html } from '../../http/html.ts'
import { ERROR_CODE, type Refusal } from '../../http/refusal.ts'
import type { Response } from '../../http/response.ts'

/** A small HTML document: `title` as title and heading, then `body`. */
export function page(
  status: number,
  title: string,
  body: Html,
  headers?: Record<string, string>,
): Response {
  return htmlResponse(status, htmlDocument(title, body), headers)
}

/** A page with a heading and one line of text. */
export function messagePage(
  status: number,
  title: string,
  text: string,
  headers?: Record<string, string>,
): Response {
  return page(status, title, html`<p>${text}</p>\n<p><a href="/">Home</a></p>`, headers)
}

/**
 * The one place a refusal of a page outside the web app becomes its page: `title` as title and
 * heading, the refusal's status and message, its code in the refusal header (as the API's).
 */
export function refusalPage(
  title: string,
  refusal: Refusal,
  headers?: Record<string, string>,
): Response {
  return messagePage(refusal.status, title, refusal.message, {
    [ERROR_CODE]: refusal.code,
    ...headers,
  })
}
