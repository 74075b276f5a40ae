/**
 * MCP elicitation in the IPC contract: what an MCP server asks the user (through the CLI's `elicitation`
 * control request), as a form of simple fields the renderer can draw, and the user's answer. Main turns the
 * server's JSON schema into these fields, so the renderer never reads a schema.
 */
import { z } from 'zod';

const Text = z.string().max(10_000);

/** One field of the form: a property of the server's requested schema. */
export const ElicitationField = z.object({
  /** The property's name: the key of its value in the answer. */
  name: z.string().min(1).max(200),
  /** "unsupported": a kind of property Byre cannot ask for (an object, say); the form can then only be declined. */
  type: z.enum(['text', 'number', 'integer', 'boolean', 'choice', 'unsupported']),
  /** The property's title, else its name. */
  label: Text,
  description: Text.nullable(),
  required: z.boolean(),
  /** For a choice: its values and what to show for each. */
  options: z.array(z.object({ value: Text, label: Text })).max(500),
  minimum: z.number().nullable(),
  maximum: z.number().nullable(),
  /** What the server suggests, as the field starts. */
  default: z.union([z.string(), z.number(), z.boolean()]).nullable(),
});
export type ElicitationField = z.infer<typeof ElicitationField>;

/** A value in an accepted answer. */
export const ElicitationValue = z.union([z.string().max(100_000), z.number(), z.boolean()]);

/** The user's answer: Submit (accept, with what they filled in), Decline, or Cancel (dismissed). */
export const ElicitationAnswer = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: z.record(z.string(), ElicitationValue) }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);
export type ElicitationAnswer = z.infer<typeof ElicitationAnswer>;

/** An MCP server asks the user something; it waits until answered, withdrawn, or the turn stops. */
export const ElicitationRequestEvent = z.object({
  kind: z.literal('elicitation_request'),
  requestId: z.string(),
  serverName: z.string(),
  message: Text,
  /** "form": the fields; "url": the user agrees to open `url` (and there are no fields). */
  mode: z.enum(['form', 'url']),
  url: z.string().nullable(),
  fields: z.array(ElicitationField),
});

/** An elicitation is no longer waiting. */
export const ElicitationResolvedEvent = z.object({
  kind: z.literal('elicitation_resolved'),
  requestId: z.string(),
  outcome: z.enum(['accept', 'decline', 'cancel']),
  /** Why, for one withdrawn without the user's answer (e.g. "Claude stopped waiting for an answer."). */
  reason: z.string().nullable(),
});
