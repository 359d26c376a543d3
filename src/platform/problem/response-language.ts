import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Language } from './language';
import { LanguageResolver } from './language-resolver';

/** The request a handler answers and its reply, for `ResponseLanguagePipe`. */
interface Exchange {
  request: FastifyRequest;
  reply: FastifyReply;
}

/** Resolves the language of a response's text (LanguageResolver) and announces it as `Content-Language`. */
@Injectable()
export class ResponseLanguagePipe implements PipeTransform<Exchange, Promise<Language>> {
  constructor(private readonly languages: LanguageResolver) {}

  async transform({ request, reply }: Exchange): Promise<Language> {
    const lang = await this.languages.resolve(request);
    void reply.header('content-language', lang);
    return lang;
  }
}

const CurrentExchange = createParamDecorator((_data: unknown, context: ExecutionContext): Exchange => ({
  request: context.switchToHttp().getRequest<FastifyRequest>(),
  reply: context.switchToHttp().getResponse<FastifyReply>(),
}));

/**
 * `@ResponseLanguage() lang: Language`: the language a handler writes its text in (batch item details,
 * task error details), resolved like problem details (`Accept-Language`, else the caller's stored
 * preference, else `ru`) and sent as `Content-Language`. Pass it to `ProblemRenderer.render()`.
 */
export const ResponseLanguage = (): ParameterDecorator => CurrentExchange(ResponseLanguagePipe);
