package gateway

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/inquiry-bot/bot/inquiry"
)

// LinkBody is the body of POST /v1/inquiries/{key}/links.
type LinkBody = inquiry.LinkRequest

// mintLink mints an answer link of one recipient (the asker's token, or admin): the README's Answer
// in a browser.
func (s *Server) mintLink(c *gin.Context) {
	var b LinkBody
	if !s.bind(c, &b, false) {
		return
	}
	out, err := s.svc.MintLink(c.Request.Context(), c.Param("key"), b)
	if err != nil {
		s.abort(c, notFound(err, c.Param("key")))
		return
	}
	c.JSON(http.StatusCreated, out)
}

// revokeLinks revokes the links of the path's recipient ("answer": the general link).
func (s *Server) revokeLinks(c *gin.Context) {
	out, err := s.svc.RevokeLinks(c.Request.Context(), c.Param("key"), c.Param("recipient"))
	if err != nil {
		s.abort(c, notFound(err, c.Param("key")))
		return
	}
	c.JSON(http.StatusOK, out)
}
