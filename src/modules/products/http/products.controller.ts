import { Body, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Roles } from '../../../platform/auth/decorators';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { OffsetPage, OffsetPageQuery } from '../../../platform/paging/offset-page';
import { Consumes, MERGE_PATCH } from '../../../platform/validation/content-type.decorator';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import {
  CreateProductRequest,
  PatchProductRequest,
  ProductPageResponse,
  ProductResponse,
} from './dto/product.dto';
import { toProductResponse } from './product.view';
import { ProductsService } from '../products.service';

/** Catalogue reads may be cached briefly by the client: products change rarely. */
const CATALOGUE_CACHE = 'private, max-age=60';

@ApiTags('Products')
@VersionedController('products', 1)
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Get()
  @ApiEndpoint({
    operationId: 'getProducts',
    replicaLag: true,
    summary: 'List the product catalogue',
    type: ProductPageResponse,
  })
  async list(
    @Query() query: OffsetPageQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OffsetPage<ProductResponse>> {
    const page = await this.products.list(query);
    void reply.header('cache-control', CATALOGUE_CACHE);
    return { ...page, content: page.content.map(toProductResponse) };
  }

  @Get(':productId')
  @ApiEndpoint({
    operationId: 'getProduct',
    summary: 'Get a product card',
    errors: ['PRODUCT_NOT_FOUND'],
    type: ProductResponse,
  })
  async get(
    @UuidParam('productId') productId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductResponse> {
    const product = await this.products.get(productId);
    void reply.header('cache-control', CATALOGUE_CACHE);
    return toProductResponse(product);
  }

  @Post()
  @HttpCode(201)
  @Roles('ADMIN')
  @ApiEndpoint({
    operationId: 'createProduct',
    summary: 'Add a product to the catalogue (admin)',
    type: ProductResponse,
    successStatus: 201,
  })
  async create(
    @Body() body: CreateProductRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProductResponse> {
    const product = await this.products.create(body);
    void reply.header('location', `/api/v1/products/${product.productId}`);
    return toProductResponse(product);
  }

  @Patch(':productId')
  @Roles('ADMIN')
  @Consumes(MERGE_PATCH)
  @ApiEndpoint({
    operationId: 'patchProduct',
    summary: 'Change product fields with a merge patch (admin)',
    errors: ['PRODUCT_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE'],
    type: ProductResponse,
  })
  async patch(
    @UuidParam('productId') productId: string,
    @Body() body: PatchProductRequest,
  ): Promise<ProductResponse> {
    return toProductResponse(await this.products.patch(productId, body));
  }
}
